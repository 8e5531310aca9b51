package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
)

// TestRESTErrorsNameTheStatus: /v1 errors carry the gRPC code's name
// beside its number, and a JSON text field sent as an object is refused
// with a message saying the field is JSON text.
func TestRESTErrorsNameTheStatus(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	for _, tc := range []struct {
		method, path, token string
		body                any
		status              int
		code                float64
		name, says          string
	}{
		{"GET", "/v1/servers/io.github.acme/none/versions/1.0.0", owner, nil, 404, 5, "NOT_FOUND", "io.github.acme/none@1.0.0"},
		{"GET", "/v1/nope", owner, nil, 404, 5, "NOT_FOUND", "no such endpoint"},
		{"GET", "/v1/servers", "", nil, 401, 16, "UNAUTHENTICATED", ""},
		{"POST", "/v1/versions", owner, `{"serverJson":{"name":"io.github.acme/x"}}`, 400, 3, "INVALID_ARGUMENT",
			"serverJson is JSON text"},
		{"POST", "/v1/versions", owner, `{"serverJson":"{}","tools":[1]}`, 400, 3, "INVALID_ARGUMENT", "tools is JSON text"},
	} {
		r := call(t, tc.method, in.URL+tc.path, tc.token, tc.body)
		m := r.json(t)
		if r.Status != tc.status || m["code"] != tc.code || m["status"] != tc.name || !strings.Contains(r.message(t), tc.says) {
			t.Errorf("%s %s: %d %s, want %d with code %v %s saying %q", tc.method, tc.path, r.Status, r.Body, tc.status, tc.code, tc.name, tc.says)
		}
	}
}

// TestUnknownPathsForBrowsers: a browser asking for an unknown page gets
// the web UI's styled not-found page; API clients keep the JSON error.
func TestUnknownPathsForBrowsers(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	get := func(path, accept string) (int, string, string) {
		req, err := http.NewRequest(http.MethodGet, in.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
	}
	html := "text/html,application/xhtml+xml,*/*;q=0.8"
	if st, ct, body := get("/nope", html); st != 404 || !strings.HasPrefix(ct, "text/html") || !strings.Contains(body, "Not found: there is no page at /nope") {
		t.Errorf("browser /nope: %d %s\n%.300s", st, ct, body)
	}
	for _, tc := range []struct{ path, accept string }{{"/nope", ""}, {"/nope", "application/json"}, {"/v1/nope", html}} {
		if st, ct, body := get(tc.path, tc.accept); st != 404 || !strings.HasPrefix(ct, "application/json") || !strings.Contains(body, `"status":"NOT_FOUND"`) {
			t.Errorf("%s (Accept %q): %d %s\n%.300s", tc.path, tc.accept, st, ct, body)
		}
	}
}
