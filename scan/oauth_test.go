package scan

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/mcpreg/mcpreg/finding"
)

func TestWellKnownURLs(t *testing.T) {
	tests := []struct {
		in   string
		prm  []string
		as   []string
		name string
	}{
		{in: "https://h.example/path/mcp", name: "path",
			prm: []string{"https://h.example/.well-known/oauth-protected-resource/path/mcp", "https://h.example/.well-known/oauth-protected-resource"},
			as:  []string{"https://h.example/.well-known/oauth-authorization-server/path/mcp", "https://h.example/.well-known/openid-configuration/path/mcp", "https://h.example/path/mcp/.well-known/openid-configuration"}},
		{in: "https://h.example:8443/t/?key=s3cret#x", name: "trailing slash, query and fragment dropped",
			prm: []string{"https://h.example:8443/.well-known/oauth-protected-resource/t", "https://h.example:8443/.well-known/oauth-protected-resource"},
			as:  []string{"https://h.example:8443/.well-known/oauth-authorization-server/t", "https://h.example:8443/.well-known/openid-configuration/t", "https://h.example:8443/t/.well-known/openid-configuration"}},
		{in: "http://h.example/", name: "root",
			prm: []string{"http://h.example/.well-known/oauth-protected-resource"},
			as:  []string{"http://h.example/.well-known/oauth-authorization-server", "http://h.example/.well-known/openid-configuration"}},
		{in: "https://h.example", name: "no path",
			prm: []string{"https://h.example/.well-known/oauth-protected-resource"},
			as:  []string{"https://h.example/.well-known/oauth-authorization-server", "https://h.example/.well-known/openid-configuration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := url.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := prmURLs(u); !slices.Equal(got, tt.prm) {
				t.Errorf("prmURLs %q\nwant %q", got, tt.prm)
			}
			if got := asURLs(u); !slices.Equal(got, tt.as) {
				t.Errorf("asURLs %q\nwant %q", got, tt.as)
			}
		})
	}
}

// TestAuthMetadataDiscovery: the protected-resource metadata is found at
// the path-inserted URL before the root one, authorization server
// metadata by RFC 8414 before OpenID Connect discovery (inserted, then
// appended), each recorded with the URL it was read at.
func TestAuthMetadataDiscovery(t *testing.T) {
	tests := []struct {
		name     string
		prmAt    []string // where the PRM is served (the first wins)
		asPath   string   // the authorization server's path ("" for none)
		asDocAt  []string // where its metadata is served, relative to its origin
		wantPRM  string
		wantAS   string
		wantSeen []string
	}{
		{"path inserted, RFC 8414", []string{prmPath, prmRootPath}, "/tenant", []string{asPath + "/tenant", oidcPath + "/tenant"},
			prmPath, asPath + "/tenant", []string{prmPath, asPath + "/tenant"}},
		{"root fallback, OpenID inserted", []string{prmRootPath}, "/tenant", []string{oidcPath + "/tenant", "/tenant" + oidcPath},
			prmRootPath, oidcPath + "/tenant", []string{prmPath, prmRootPath, asPath + "/tenant", oidcPath + "/tenant"}},
		{"OpenID appended", []string{prmPath}, "/tenant", []string{"/tenant" + oidcPath},
			prmPath, "/tenant" + oidcPath, []string{prmPath, asPath + "/tenant", oidcPath + "/tenant", "/tenant" + oidcPath}},
		{"issuer without path, OpenID", []string{prmPath}, "", []string{oidcPath},
			prmPath, oidcPath, []string{prmPath, asPath, oidcPath}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newMetaServer(t, true)
			issuer := srv.URL + tt.asPath
			for i, p := range tt.prmAt {
				doc := srv.prm(issuer)
				if i > 0 {
					doc = srv.prm("https://elsewhere.example")
				}
				srv.json(p, doc)
			}
			for _, p := range tt.asDocAt {
				srv.json(p, asDoc(issuer))
			}
			snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.endpoint()})
			if fs := authFindings(snap); len(fs) != 0 {
				t.Fatalf("findings %+v", fs)
			}
			a := snap.Auth
			if a == nil || a.MetadataURL != srv.URL+tt.wantPRM || a.Resource != srv.endpoint() ||
				!slices.Equal(a.AuthorizationServers, []string{issuer}) || !slices.Equal(a.ScopesSupported, []string{"read", "write"}) ||
				string(a.Raw) != srv.prm(issuer) {
				t.Fatalf("auth %+v", a)
			}
			s := a.Servers
			if len(s) != 1 || s[0].URL != issuer || s[0].MetadataURL != srv.URL+tt.wantAS || s[0].Issuer != issuer ||
				!slices.Equal(s[0].ScopesSupported, []string{"openid", "read"}) || string(s[0].Raw) != asDoc(issuer) || s[0].Error != "" {
				t.Fatalf("servers %+v", s)
			}
			if got := srv.paths(); !slices.Equal(got, tt.wantSeen) {
				t.Fatalf("requested %q\nwant %q", got, tt.wantSeen)
			}
		})
	}
}

// TestAuthMetadataAbsent: a server without metadata costs the two
// well-known requests and leaves no trace; one that answers another 4xx
// (an MCP handler mounted at the root answers 400) is the same.
func TestAuthMetadataAbsent(t *testing.T) {
	srv := newMetaServer(t, true)
	snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.endpoint()})
	if snap.Auth != nil || len(snap.Findings) != 0 {
		t.Fatalf("auth %+v findings %+v", snap.Auth, snap.Findings)
	}
	if got := srv.paths(); !slices.Equal(got, []string{prmPath, prmRootPath}) {
		t.Fatalf("requested %q", got)
	}
	data, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["auth"]; ok {
		t.Fatal(`snapshot JSON has "auth"`)
	}

	root := sdkHTTP(t, sdkConfig{}, true)
	snap = mustRead(t, Limits{}, HTTPTarget{URL: root.URL})
	if snap.Auth != nil || len(snap.Findings) != 0 {
		t.Fatalf("root: auth %+v findings %+v", snap.Auth, snap.Findings)
	}
}

func TestAuthOnlyForHTTP(t *testing.T) {
	for _, tt := range []struct {
		t  Target
		ok bool
	}{
		{HTTPTarget{URL: "https://h.example/mcp"}, true},
		{&HTTPTarget{URL: "https://h.example/mcp"}, true},
		{(*HTTPTarget)(nil), false},
		{StdioTarget{Command: "true"}, false},
	} {
		if _, ok := httpEndpoint(tt.t); ok != tt.ok {
			t.Errorf("%#v: %v", tt.t, ok)
		}
	}
}

// TestAuthResourceMismatch: "resource" must be the endpoint or its origin,
// with or without a trailing slash.
func TestAuthResourceMismatch(t *testing.T) {
	tests := []struct {
		name     string
		resource func(s *metaServer) string
		mismatch bool
	}{
		{"endpoint", func(s *metaServer) string { return s.endpoint() }, false},
		{"endpoint with slash", func(s *metaServer) string { return s.endpoint() + "/" }, false},
		{"origin", func(s *metaServer) string { return s.URL }, false},
		{"origin with slash", func(s *metaServer) string { return s.URL + "/" }, false},
		{"another server", func(*metaServer) string { return "https://other.example/mcp" }, true},
		{"another path", func(s *metaServer) string { return s.URL + "/path" }, true},
		{"empty", func(*metaServer) string { return "" }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newMetaServer(t, true)
			res := tt.resource(srv)
			srv.json(prmPath, fmt.Sprintf(`{"resource":%q}`, res))
			snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.endpoint()})
			if snap.Auth == nil || snap.Auth.Resource != res || snap.Auth.AuthorizationServers == nil {
				t.Fatalf("auth %+v", snap.Auth)
			}
			fs := authFindings(snap)
			if !tt.mismatch {
				if len(fs) != 0 {
					t.Fatalf("findings %+v", fs)
				}
				return
			}
			wantFinding(t, fs, KindAuthResourceMismatch, finding.Medium, fmt.Sprintf("%q", res), srv.endpoint(), srv.URL+prmPath)
		})
	}
}

// TestAuthIssuerMismatch: the metadata's issuer must be the URL listed,
// exactly.
func TestAuthIssuerMismatch(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"another issuer", asDoc("https://evil.example")},
		{"trailing slash", "{{slash}}"},
		{"no issuer", `{"authorization_endpoint":"https://as.example/authorize"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newMetaServer(t, true)
			srv.json(prmPath, srv.prm(srv.URL))
			doc := tt.doc
			if doc == "{{slash}}" {
				doc = asDoc(srv.URL + "/")
			}
			srv.json(asPath, doc)
			snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.endpoint()})
			if snap.Auth == nil || len(snap.Auth.Servers) != 1 || string(snap.Auth.Servers[0].Raw) != doc {
				t.Fatalf("auth %+v", snap.Auth)
			}
			wantFinding(t, authFindings(snap), KindAuthIssuerMismatch, finding.Medium, srv.URL+asPath, fmt.Sprintf("%q", srv.URL))
		})
	}
}

// TestAuthServerCap: at most four authorization servers are read; the
// rest are listed as not read and never requested.
func TestAuthServerCap(t *testing.T) {
	srv := newMetaServer(t, true)
	var servers []string
	for i := range 6 {
		p := fmt.Sprintf("/as%d", i)
		servers = append(servers, srv.URL+p)
		srv.json(asPath+p, asDoc(srv.URL+p))
	}
	srv.json(prmPath, srv.prm(servers...))
	snap := mustRead(t, Limits{}, HTTPTarget{URL: srv.endpoint()})
	if fs := authFindings(snap); len(fs) != 0 {
		t.Fatalf("findings %+v", fs)
	}
	got := snap.Auth.Servers
	if len(got) != 6 || !slices.Equal(snap.Auth.AuthorizationServers, servers) {
		t.Fatalf("servers %+v", got)
	}
	for i, s := range got {
		read := s.Issuer == servers[i] && s.Error == ""
		notRead := s.Error == "not read: more than 4" && s.Raw == nil && s.MetadataURL == ""
		if s.URL != servers[i] || (i < 4 && !read) || (i >= 4 && !notRead) {
			t.Fatalf("server %d: %+v", i, s)
		}
	}
	for _, p := range srv.paths() {
		if p == asPath+"/as4" || p == asPath+"/as5" {
			t.Fatalf("requested %s", p)
		}
	}
}

// FuzzParseAuthMetadata: hostile documents never panic, and what is
// accepted keeps the rules: listed authorization servers are http or https
// URLs with a host.
func FuzzParseAuthMetadata(f *testing.F) {
	for _, seed := range []string{
		`{"resource":"https://h.example/mcp","authorization_servers":["https://as.example/t"],"scopes_supported":["a"]}`,
		`{"issuer":"https://as.example","scopes_supported":[]}`,
		`{"resource":"x","authorization_servers":["ftp://as.example"]}`,
		`{"resource":null}`, `[]`, `null`, `{"resource":"a","resource":"b"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if auth, err := parsePRM(doc); err == nil {
			for _, s := range auth.AuthorizationServers {
				u, err := url.Parse(s)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					t.Fatalf("accepted authorization server %q", s)
				}
			}
		}
		_, _, _ = parseASMetadata(doc)
	})
}
