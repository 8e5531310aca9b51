package scan

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/finding"
)

// TestAuthMetadataRefused: the dial guard checks every metadata request
// and redirect, and redirects follow the rules; a refusal is a high
// finding, and the scan still succeeds.
func TestAuthMetadataRefused(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(s *metaServer)
		fragments []string
	}{
		{"redirect to cloud metadata", func(s *metaServer) {
			s.redirect(prmPath, "http://169.254.169.254/latest/meta-data/")
		}, []string{"169.254.169.254:80 is cloud metadata"}},
		{"redirect to another scheme", func(s *metaServer) {
			s.redirect(prmPath, "file:///etc/passwd")
		}, []string{`to "file:///etc/passwd": only http and https are followed`}},
		{"too many redirects", func(s *metaServer) {
			for i := range 4 {
				s.redirect(fmt.Sprintf("/r%d", i), fmt.Sprintf("%s/r%d", s.URL, i+1))
			}
			s.redirect(prmPath, s.URL+"/r0")
			s.json("/r4", s.prm())
		}, []string{"more than 3 redirects"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newMetaServer(t, true)
			tt.setup(srv)
			snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.endpoint()})
			if snap.Auth != nil || snap.Tools == nil {
				t.Fatalf("auth %+v tools %v", snap.Auth, snap.Tools)
			}
			fragments := append([]string{srv.URL + prmPath, "refused"}, tt.fragments...)
			wantFinding(t, authFindings(snap), KindAuthMetadataRefused, finding.High, fragments...)
		})
	}
}

// TestAuthMetadataThreeRedirects: three redirects, across origins, are
// followed.
func TestAuthMetadataThreeRedirects(t *testing.T) {
	srv, other := newMetaServer(t, true), newMetaServer(t, false)
	srv.redirect(prmPath, other.URL+"/r1")
	other.redirect("/r1", srv.URL+"/r2")
	srv.redirect("/r2", other.URL+"/doc")
	other.json("/doc", srv.prm())
	snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.endpoint()})
	if snap.Auth == nil || snap.Auth.MetadataURL != srv.URL+prmPath || len(authFindings(snap)) != 0 {
		t.Fatalf("auth %+v findings %+v", snap.Auth, snap.Findings)
	}
}

// TestAuthRedirectNotDialed: a redirect to a restricted address that is
// not allow-listed is refused before connecting: the listener there never
// sees a connection.
func TestAuthRedirectNotDialed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	srv := newMetaServer(t, true)
	srv.redirect(prmPath, "http://"+ln.Addr().String()+"/doc")
	snap, err := readWith(t, "127.0.0.1/32", HTTPTarget{URL: srv.endpoint()})
	if err != nil {
		t.Fatal(err)
	}
	wantFinding(t, authFindings(snap), KindAuthMetadataRefused, finding.High, ln.Addr().String()+" is loopback")
	if n := accepted.Load(); n != 0 {
		t.Fatalf("%d connections to %s", n, ln.Addr())
	}
}

// TestAuthServerRefused: an authorization server at a restricted address
// is not read; its entry says why.
func TestAuthServerRefused(t *testing.T) {
	srv := newMetaServer(t, true)
	srv.json(prmPath, srv.prm("http://169.254.169.254/tenant", srv.URL))
	srv.json(asPath, asDoc(srv.URL))
	snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.endpoint()})
	if snap.Auth == nil || len(snap.Auth.Servers) != 2 {
		t.Fatalf("auth %+v", snap.Auth)
	}
	bad, good := snap.Auth.Servers[0], snap.Auth.Servers[1]
	if !strings.Contains(bad.Error, "cloud metadata") || bad.Raw != nil || good.Error != "" || good.Issuer != srv.URL {
		t.Fatalf("servers %+v", snap.Auth.Servers)
	}
	wantFinding(t, authFindings(snap), KindAuthMetadataRefused, finding.High, "authorization server http://169.254.169.254/tenant", "cloud metadata")
}

// TestAuthNoTargetHeaders: the target's headers (credentials) are sent to
// the MCP endpoint only, never with a metadata request, on its own origin
// or after a redirect to another.
func TestAuthNoTargetHeaders(t *testing.T) {
	srv, other := newMetaServer(t, true), newMetaServer(t, false)
	srv.redirect(prmPath, other.URL+"/prm")
	other.json("/prm", srv.prm(srv.URL, other.URL))
	srv.json(asPath, asDoc(srv.URL))
	other.redirect(asPath, srv.URL+"/as-other")
	srv.json("/as-other", asDoc(other.URL))
	headers := map[string]string{"Authorization": "Bearer canary-123", "X-Api-Key": "canary-456", "Cookie": "session=canary-789"}
	snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.endpoint(), Headers: headers})
	if snap.Auth == nil || len(snap.Auth.Servers) != 2 || snap.Auth.Servers[0].Issuer != srv.URL || snap.Auth.Servers[1].Issuer != other.URL {
		t.Fatalf("auth %+v", snap.Auth)
	}
	if fs := authFindings(snap); len(fs) != 0 {
		t.Fatalf("findings %+v", fs)
	}
	srv.mu.Lock()
	mcpSawCanary := len(srv.seen) > 0 && srv.seen[0].path == mcpPath && srv.seen[0].header.Get("Authorization") == "Bearer canary-123"
	srv.mu.Unlock()
	if !mcpSawCanary {
		t.Fatal("the MCP endpoint did not get the target's headers")
	}
	n := 0
	for _, s := range []*metaServer{srv, other} {
		for _, r := range s.requests() {
			n++
			for name, vs := range r.header {
				if strings.Contains(strings.Join(vs, " "), "canary") || name == "Authorization" || name == "Cookie" {
					t.Errorf("%s%s carried %s: %q", s.URL, r.path, name, vs)
				}
			}
		}
	}
	if n < 5 { // PRM, its redirect, two AS documents, one redirect
		t.Fatalf("%d metadata requests", n)
	}
}

// TestAuthMetadataUnreadable: a protected-resource metadata document that
// breaks the rules is a medium finding naming its URL and the rule, with
// no Auth; the scan still succeeds.
func TestAuthMetadataUnreadable(t *testing.T) {
	big := `{"resource":"x","pad":"` + strings.Repeat("a", 64<<10) + `"}`
	tests := []struct {
		name     string
		handler  http.Handler
		fragment string
	}{
		{"oversized", doc(big), "64 KiB (65536 bytes)"},
		{"oversized, endless", endless(), "64 KiB (65536 bytes)"},
		{"oversized, declared", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1073741824")
			_, _ = w.Write([]byte(`{"resource":`))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}), "64 KiB (65536 bytes)"},
		{"not JSON", doc(`<html>hello</html>`), "not strict JSON"},
		{"array", doc(`[{"resource":"x"}]`), "not a JSON object"},
		{"null", doc(`null`), "not a JSON object"},
		{"duplicate member", doc(`{"resource":"a","resource":"b"}`), "not strict JSON"},
		{"resource a number", doc(`{"resource":1}`), "/resource must be a string"},
		{"resource null", doc(`{"resource":null}`), "/resource must be a string"},
		{"resource missing", doc(`{"Resource":"x"}`), "/resource must be a string"},
		{"servers a string", doc(`{"resource":"x","authorization_servers":"https://as.example"}`), "/authorization_servers must be an array of strings"},
		{"server a number", doc(`{"resource":"x","authorization_servers":["https://as.example",1]}`), "/authorization_servers must be an array of strings"},
		{"server not http", doc(`{"resource":"x","authorization_servers":["ftp://as.example"]}`), `/authorization_servers/0 "ftp://as.example" is not an absolute http or https URL`},
		{"server relative", doc(`{"resource":"x","authorization_servers":["/as"]}`), "is not an absolute http or https URL"},
		{"scopes with null", doc(`{"resource":"x","scopes_supported":["a",null]}`), "/scopes_supported must be an array of strings"},
		{"server error", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}), "status 500"},
		{"no content", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		}), "status 204"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newMetaServer(t, true)
			srv.handle(prmPath, tt.handler)
			snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.endpoint()})
			if snap.Auth != nil || snap.Tools == nil {
				t.Fatalf("auth %+v tools %v", snap.Auth, snap.Tools)
			}
			wantFinding(t, authFindings(snap), KindAuthMetadataUnreadable, finding.Medium, srv.URL+prmPath, tt.fragment)
		})
	}
}

// TestAuthServerUnreadable: authorization server metadata that cannot be
// read is recorded on its entry and as a medium finding.
func TestAuthServerUnreadable(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(s *metaServer)
		fragment string
	}{
		{"issuer a number", func(s *metaServer) { s.json(asPath, `{"issuer":1}`) }, asPath + ": /issuer must be a string"},
		{"scopes an object", func(s *metaServer) {
			s.json(asPath, fmt.Sprintf(`{"issuer":%q,"scopes_supported":{}}`, s.URL))
		}, "/scopes_supported must be an array of strings"},
		{"oversized", func(s *metaServer) {
			s.json(oidcPath, fmt.Sprintf(`{"issuer":%q,"pad":"%s"}`, s.URL, strings.Repeat("a", 64<<10)))
		}, oidcPath + ": the document is larger than the limit of 64 KiB"},
		{"none published", func(*metaServer) {}, "no metadata at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newMetaServer(t, true)
			srv.json(prmPath, srv.prm(srv.URL))
			tt.setup(srv)
			snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.endpoint()})
			if snap.Auth == nil || len(snap.Auth.Servers) != 1 {
				t.Fatalf("auth %+v", snap.Auth)
			}
			s := snap.Auth.Servers[0]
			if !strings.Contains(s.Error, tt.fragment) || s.Raw != nil || s.Issuer != "" {
				t.Fatalf("server %+v; want error mentioning %q", s, tt.fragment)
			}
			wantFinding(t, authFindings(snap), KindAuthMetadataUnreadable, finding.Medium, "authorization server "+srv.URL, tt.fragment)
		})
	}
}

// TestAuthMetadataTime: a request that never completes ends with the
// request's limit, the step's, or the scan's deadline, whichever comes
// first, as an unreadable finding.
func TestAuthMetadataTime(t *testing.T) {
	hang := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	tests := []struct {
		name           string
		wait, stepWait time.Duration
		fragment       string
	}{
		{"request", 300 * time.Millisecond, time.Minute, "within 300ms, the limit for one metadata request"},
		{"step", time.Minute, 300 * time.Millisecond, "before the metadata step ran out of time (300ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newMetaServer(t, false)
			srv.handle(prmPath, hang)
			allow, err := ParseAllowList("127.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			m := newMetaReader(allow)
			defer m.close()
			m.wait, m.stepWait = tt.wait, tt.stepWait
			u, _ := url.Parse(srv.endpoint())
			if auth := m.read(context.Background(), u); auth != nil {
				t.Fatalf("auth %+v", auth)
			}
			wantFinding(t, m.findings, KindAuthMetadataUnreadable, finding.Medium, srv.URL+prmPath, tt.fragment)
		})
	}
	t.Run("scan deadline", func(t *testing.T) {
		srv := newMetaServer(t, true)
		srv.handle(prmPath, hang)
		snap := mustRead(t, Limits{Deadline: 3 * time.Second}, HTTPTarget{URL: srv.endpoint()})
		wantFinding(t, authFindings(snap), KindAuthMetadataUnreadable, finding.Medium, "metadata step ran out of time")
	})
}

// endless streams spaces until the client goes away.
func endless() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat(" ", 1<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
}

// doc serves body with status 200.
func doc(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	})
}
