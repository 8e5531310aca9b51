package scan

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpreg/mcpreg/finding"
)

// mcpPath is where metaServer serves MCP.
const mcpPath = "/path/mcp"

// metaServer is an MCP server at mcpPath (when it has one) that serves
// the documents registered with handle at other paths, 404 elsewhere, and
// notes every request.
type metaServer struct {
	*httptest.Server
	mu   sync.Mutex
	docs map[string]http.Handler
	seen []seenRequest
}

type seenRequest struct {
	path   string
	header http.Header
}

func newMetaServer(t *testing.T, withMCP bool) *metaServer {
	t.Helper()
	s := &metaServer{docs: map[string]http.Handler{}}
	mcp := newHandler(sdkConfig{}, true)
	s.Server = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, seenRequest{r.URL.Path, r.Header.Clone()})
		h := s.docs[r.URL.Path]
		s.mu.Unlock()
		switch {
		case h != nil:
			h.ServeHTTP(w, r)
		case withMCP && r.URL.Path == mcpPath:
			mcp.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	return s
}

func (s *metaServer) endpoint() string { return s.URL + mcpPath }

func (s *metaServer) handle(path string, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[path] = h
}

// json serves body at path with status 200.
func (s *metaServer) json(path, body string) {
	s.handle(path, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
}

// redirect answers path with a 302 to to.
func (s *metaServer) redirect(path, to string) {
	s.handle(path, http.RedirectHandler(to, http.StatusFound))
}

// requests returns the requests seen for paths other than mcpPath.
func (s *metaServer) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []seenRequest
	for _, r := range s.seen {
		if r.path != mcpPath {
			out = append(out, r)
		}
	}
	return out
}

func (s *metaServer) paths() []string {
	var out []string
	for _, r := range s.requests() {
		out = append(out, r.path)
	}
	return out
}

// Well-known paths of the endpoint at mcpPath and an authorization server.
const (
	prmPath     = "/.well-known/oauth-protected-resource" + mcpPath
	prmRootPath = "/.well-known/oauth-protected-resource"
	asPath      = "/.well-known/oauth-authorization-server"
	oidcPath    = "/.well-known/openid-configuration"
)

// prm is a protected-resource metadata document for s's endpoint listing
// the authorization servers given.
func (s *metaServer) prm(servers ...string) string {
	return fmt.Sprintf(`{"resource":%q,"authorization_servers":[%s],"scopes_supported":["read","write"]}`,
		s.endpoint(), quoteAll(servers))
}

func quoteAll(ss []string) string {
	var q []string
	for _, s := range ss {
		q = append(q, fmt.Sprintf("%q", s))
	}
	return strings.Join(q, ",")
}

// asDoc is authorization server metadata with issuer.
func asDoc(issuer string) string {
	return fmt.Sprintf(`{"issuer":%q,"authorization_endpoint":"%s/authorize","scopes_supported":["openid","read"]}`, issuer, issuer)
}

// authFindings returns the findings of snap whose kind starts with "auth.".
func authFindings(snap *Snapshot) []finding.Finding {
	var out []finding.Finding
	for _, f := range snap.Findings {
		if strings.HasPrefix(f.Kind, "auth.") {
			out = append(out, f)
		}
	}
	return out
}

// wantFinding checks that fs is exactly one finding of kind and severity
// whose message mentions every fragment.
func wantFinding(tb testing.TB, fs []finding.Finding, kind string, sev finding.Severity, fragments ...string) {
	tb.Helper()
	if len(fs) != 1 || fs[0].Kind != kind || fs[0].Severity != sev {
		tb.Fatalf("findings %+v; want one %s %s", fs, sev, kind)
	}
	tb.Logf("message: %s", fs[0].Message)
	for _, f := range fragments {
		if !strings.Contains(fs[0].Message, f) {
			tb.Fatalf("message %q does not mention %q", fs[0].Message, f)
		}
	}
}
