package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/server/servertest"
)

// TestServedByMcpregd: the service's HTTP port serves the UI beside the
// API, with the service's request ids and without breaking API routing.
func TestServedByMcpregd(t *testing.T) {
	t.Parallel()
	in := servertest.Start(t, "sqlite3")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	cases := []struct {
		path, status, location, contentType string
	}{
		{"/", "303", "/signin", ""},
		{"/queue", "303", "/signin?next=%2Fqueue", ""},
		{"/signin", "200", "", "text/html"},
		{"/static/style.css", "200", "", "text/css"},
		{"/v1/servers", "401", "", "application/json"},
		{"/healthz", "200", "", "application/json"},
	}
	for _, c := range cases {
		resp, err := client.Get(in.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := resp.Status[:3]; got != c.status || resp.Header.Get("Location") != c.location ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), c.contentType) {
			t.Errorf("GET %s: %s %q %q, want %s %q %q", c.path, got, resp.Header.Get("Location"),
				resp.Header.Get("Content-Type"), c.status, c.location, c.contentType)
		}
		if resp.Header.Get("X-Request-Id") == "" {
			t.Errorf("GET %s: no X-Request-Id", c.path)
		}
	}
}
