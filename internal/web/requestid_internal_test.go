package web

import (
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/requestid"
)

// TestRequestIDFromContext: the web UI names the request id the server's
// middleware put in the context, and the header only without one.
func TestRequestIDFromContext(t *testing.T) {
	r := httptest.NewRequest("GET", "/servers", nil)
	r.Header.Set("X-Request-Id", "from-header")
	if got := requestID(r); got != "from-header" {
		t.Fatalf("without a context id: %q, want the header's", got)
	}
	r = r.WithContext(requestid.With(r.Context(), "from-context"))
	if got := requestID(r); got != "from-context" {
		t.Fatalf("with a context id: %q, want the context's", got)
	}
	a := &app{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if _, msg := a.describe(r, errors.New("disk on fire")); !strings.Contains(msg, "request id from-context") {
		t.Fatalf("internal error page: %q", msg)
	}
}
