package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
)

// TestOfficialCORS: /v0.1 answers cross-origin reads as the official
// registry does when it is public (any origin, "*", a 204 preflight); a
// private one answers only the configured origins, by exact match and
// with Vary: Origin, never an origin it was not given; GET only,
// Authorization allowed, never credentials; without either, and on /v1,
// no CORS headers at all.
func TestOfficialCORS(t *testing.T) {
	type probe struct{ method, path, origin, reqMethod string }
	do := func(t *testing.T, base, token string, p probe) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(p.method, base+p.path, nil)
		if p.origin != "" {
			req.Header.Set("Origin", p.origin)
		}
		if p.reqMethod != "" {
			req.Header.Set("Access-Control-Request-Method", p.reqMethod)
			req.Header.Set("Access-Control-Request-Headers", "authorization")
		}
		if token != "" && p.method == http.MethodGet {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.Header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%+v: credentials allowed", p)
		}
		return resp
	}
	acao := func(r *http.Response) string { return r.Header.Get("Access-Control-Allow-Origin") }

	t.Run("public", func(t *testing.T) {
		in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) { c.PublicReadAPI = true })
		if r := do(t, in.URL, "", probe{"GET", "/v0.1/servers", "https://any.example", ""}); r.StatusCode != 200 || acao(r) != "*" {
			t.Errorf("public GET: %d %q", r.StatusCode, acao(r))
		}
		r := do(t, in.URL, "", probe{"OPTIONS", "/v0.1/servers", "https://any.example", "GET"})
		if r.StatusCode != http.StatusNoContent || acao(r) != "*" || !strings.Contains(strings.ToLower(r.Header.Get("Access-Control-Allow-Headers")), "authorization") {
			t.Errorf("public preflight: %d %q %q", r.StatusCode, acao(r), r.Header.Get("Access-Control-Allow-Headers"))
		}
		if r := do(t, in.URL, "", probe{"OPTIONS", "/v0.1/servers", "https://any.example", "DELETE"}); acao(r) != "" {
			t.Errorf("preflight of DELETE allowed: %q", acao(r))
		}
		if r := do(t, in.URL, "", probe{"GET", "/v1/whoami", "https://any.example", ""}); acao(r) != "" {
			t.Errorf("/v1 answered CORS: %q", acao(r))
		}
	})
	t.Run("origins", func(t *testing.T) {
		in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) { c.CORSOrigins = []string{"https://app.example"} })
		host := in.HostToken(t, "laptop")
		r := do(t, in.URL, host, probe{"GET", "/v0.1/servers", "https://app.example", ""})
		if r.StatusCode != 200 || acao(r) != "https://app.example" || !strings.Contains(r.Header.Get("Vary"), "Origin") {
			t.Errorf("configured origin: %d %q vary %q", r.StatusCode, acao(r), r.Header.Get("Vary"))
		}
		for _, o := range []string{"https://evil.example", "https://app.example.evil.example", "http://app.example", "null"} {
			if r := do(t, in.URL, host, probe{"GET", "/v0.1/servers", o, ""}); acao(r) != "" {
				t.Errorf("origin %s got %q", o, acao(r))
			}
		}
		if r := do(t, in.URL, "", probe{"OPTIONS", "/v0.1/servers", "https://app.example", "GET"}); r.StatusCode != http.StatusNoContent || acao(r) != "https://app.example" {
			t.Errorf("configured preflight: %d %q", r.StatusCode, acao(r))
		}
		if r := do(t, in.URL, "", probe{"GET", "/v0.1/servers", "https://app.example", ""}); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("a configured origin does not make the API public: %d", r.StatusCode)
		}
	})
	t.Run("neither", func(t *testing.T) {
		in := servertest.Start(t, store.DialectSQLite)
		host := in.HostToken(t, "laptop")
		if r := do(t, in.URL, host, probe{"GET", "/v0.1/servers", "https://app.example", ""}); r.StatusCode != 200 || acao(r) != "" {
			t.Errorf("no CORS configured: %d %q", r.StatusCode, acao(r))
		}
		if r := do(t, in.URL, "", probe{"OPTIONS", "/v0.1/servers", "https://app.example", "GET"}); acao(r) != "" {
			t.Errorf("no CORS configured, preflight: %d %q", r.StatusCode, acao(r))
		}
	})
	if err := config.DefaultConfig().Verify(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"*", "https://*.example", "https://app.example/path", "ftp://x", "https://App.example"} {
		c := config.DefaultConfig()
		c.CORSOrigins = []string{o}
		if err := c.Verify(); err == nil || !strings.Contains(err.Error(), "--cors-origins") {
			t.Errorf("--cors-origins %q: %v", o, err)
		}
	}
}
