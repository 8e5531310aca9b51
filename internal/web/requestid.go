package web

import (
	"net/http"

	"github.com/mcpreg/mcpreg/internal/requestid"
)

// requestID is the id of r: the one the server's middleware put in its
// context, else (the UI mounted without that middleware) its header.
func requestID(r *http.Request) string {
	if id := requestid.From(r.Context()); id != "" {
		return id
	}
	return r.Header.Get(requestid.Header)
}
