package client

import (
	"strings"
	"testing"
)

// FuzzNewAPIError feeds error bodies from an untrusted peer: parsing never
// panics and the message stays printable and bounded.
func FuzzNewAPIError(f *testing.F) {
	f.Add(409, "application/json", `{"code":9,"message":"its current state is approved","details":[]}`)
	f.Add(404, "text/plain", "404 page not found\n")
	f.Add(500, "application/json", `{"code":"x","message":7}`)
	f.Add(400, "application/json", "{\"message\":\"\\u001b[31m\\ud800\"}")
	f.Add(502, "text/html", "<html></html>")
	f.Fuzz(func(t *testing.T, status int, contentType, body string) {
		if status < 100 || status > 999 {
			return
		}
		e := newAPIError(response(status, contentType, "", body))
		if len(e.Message) > maxErrorBodyBytes+len("…") {
			t.Fatalf("message of %d bytes", len(e.Message))
		}
		if strings.ContainsFunc(e.Error(), func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }) {
			t.Fatalf("control character in %q", e.Error())
		}
		_ = e.Is(ErrConflict)
	})
}
