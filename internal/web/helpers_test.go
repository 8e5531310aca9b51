package web_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/web"
)

const schemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// password is every test principal's password.
const password = "correct horse battery"

var bootstrap = &registry.Caller{Principal: "test-bootstrap", Role: registry.RoleAdmin}

var owner = &registry.Caller{Principal: "acme-ci", Role: registry.RoleOwner, Namespaces: []string{"io.github.acme"}}

// env is a web UI over a real registry on a fresh SQLite database, with
// reviewers alice and bob and admin root able to sign in.
type env struct {
	mu    sync.Mutex
	users map[string]bool // principals given a password so far
	svc   *registry.Services
	id    *identity.Service
	st    *store.Store
	h     http.Handler
	srv   *httptest.Server
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, false)
}

// newEnvWith sets Options.Secure.
func newEnvWith(t testing.TB, secure bool) *env {
	t.Helper()
	st := storetest.Open(t, store.DialectSQLite)
	svc, err := registry.New(context.Background(), st, registry.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return envOn(t, svc, st, secure)
}

// envOn serves the web UI of an existing service.
func envOn(t testing.TB, svc *registry.Services, st *store.Store, secure bool) *env {
	t.Helper()
	id := identity.New(st, svc.Audit.AuditWriter(), identity.WithLogger(slog.New(slog.DiscardHandler)))
	h, err := web.New(svc, id, slog.New(slog.DiscardHandler), web.Options{Secure: secure})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &env{users: map[string]bool{}, svc: svc, id: id, st: st, h: h, srv: srv}
}

func serverJSON(name, version, description string) []byte {
	return fmt.Appendf(nil, `{"$schema":%q,"name":%q,"description":%q,"version":%q,
 "remotes":[{"type":"streamable-http","url":"https://mcp.example.com/mcp"}]}`, schemaURL, name, description, version)
}

const tools = `{"tools":[{"name":"get_forecast","description":"Get the forecast for a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}]}`

// submit stores a version as caller c.
func (e *env) submit(t testing.TB, c *registry.Caller, name, version, toolsJSON string) {
	t.Helper()
	_, err := e.svc.Review.Submit(context.Background(), c, registry.Submission{ServerJSON: serverJSON(name, version, "Weather forecasts"),
		Tools: []byte(toolsJSON)})
	if err != nil {
		t.Fatalf("submit %s@%s: %v", name, version, err)
	}
}

// weatherState is the state of version 1.0.0 of io.github.acme/weather.
func (e *env) weatherState(t testing.TB) string {
	t.Helper()
	v, err := e.svc.Review.GetVersion(context.Background(), &registry.Caller{Principal: "t", Role: registry.RoleAdmin}, weather, "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	return v.GetState()
}

// roles are the principals tests sign in as; each gets its password
// (argon2id, slow on purpose) when first needed.
var roles = map[string]registry.Role{"alice": registry.RoleReviewer, "bob": registry.RoleReviewer, "root": registry.RoleAdmin}

func (e *env) user(t testing.TB, name string) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.users[name] || roles[name] == "" {
		return
	}
	if err := e.id.SetPassword(context.Background(), bootstrap, name, roles[name], password); err != nil {
		t.Fatalf("password for %s: %v", name, err)
	}
	e.users[name] = true
}

// browser is a cookie-keeping client that does not follow redirects.
type browser struct {
	t    testing.TB
	e    *env
	base string
	c    *http.Client
	csrf string // the session's form token, once signed in
}

func (e *env) browser(t testing.TB) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, e: e, base: e.srv.URL, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type reply struct {
	Status   int
	Body     string
	Location string
	Header   http.Header
}

func (b *browser) do(req *http.Request) reply {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(body), resp.Header.Get("Location"), resp.Header}
}

func (b *browser) get(path string) reply {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.base+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req)
}

// post sends a form; headers are name, value pairs.
func (b *browser) post(path string, form url.Values, headers ...string) reply {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.do(req)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// formToken reads the first CSRF token of a page.
func formToken(t testing.TB, body string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no csrf field in page:\n%s", body)
	}
	return html.UnescapeString(m[1])
}

// trySignIn fills in the sign-in form.
func (b *browser) trySignIn(name, pw, next string) reply {
	b.t.Helper()
	b.e.user(b.t, name)
	form := b.get("/signin")
	if form.Status != http.StatusOK {
		b.t.Fatalf("GET /signin: %d", form.Status)
	}
	return b.post("/signin", url.Values{"name": {name}, "password": {pw}, "next": {next}, "csrf": {formToken(b.t, form.Body)}})
}

// signIn signs in and keeps the session's CSRF token.
func (b *browser) signIn(name string) *browser {
	b.t.Helper()
	r := b.trySignIn(name, password, "/queue")
	if r.Status != http.StatusSeeOther {
		b.t.Fatalf("sign in %s: %d\n%s", name, r.Status, r.Body)
	}
	q := b.get("/queue")
	if q.Status != http.StatusOK {
		b.t.Fatalf("queue after sign-in: %d", q.Status)
	}
	b.csrf = formToken(b.t, q.Body)
	return b
}

// decide posts a decision form of the review page with the session token.
func (b *browser) decide(name, version, action, reason string, acks ...string) reply {
	b.t.Helper()
	return b.post("/review/"+name+"/"+version+"/"+action, url.Values{"csrf": {b.csrf}, "reason": {reason}, "ack": acks})
}

// lineBreakSpans are the spans that only say how a line may break (keep a
// short piece whole, let a long word break): mustContain reads the page
// without them and without <wbr>.
var lineBreakSpans = []string{`<span class="nw">`, `<span class="long">`}

// mustContain fails unless the page, read without the line-break markup,
// holds every want.
func mustContain(t testing.TB, body string, wants ...string) {
	t.Helper()
	body = withoutLineBreakMarkup(body)
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

// withoutLineBreakMarkup drops every <wbr> and every lineBreakSpans span
// (its tags, not its text) from an HTML page.
func withoutLineBreakMarkup(s string) string {
	var b strings.Builder
	var dropped []bool // per open <span>: was it one of lineBreakSpans?
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		tag := s[:strings.IndexByte(s, '>')+1]
		switch {
		case tag == "<wbr>":
			s = s[len(tag):]
			continue
		case strings.HasPrefix(tag, "<span"):
			drop := slices.Contains(lineBreakSpans, tag)
			dropped = append(dropped, drop)
			if drop {
				s = s[len(tag):]
				continue
			}
		case tag == "</span>" && len(dropped) > 0:
			drop := dropped[len(dropped)-1]
			dropped = dropped[:len(dropped)-1]
			if drop {
				s = s[len(tag):]
				continue
			}
		}
		b.WriteString(tag)
		s = s[len(tag):]
		if tag == "" { // a "<" with no ">": the rest is text
			b.WriteString(s)
			return b.String()
		}
	}
}

// bootstrapAs is an admin caller named name (admins may submit).
func bootstrapAs(name string) *registry.Caller {
	return &registry.Caller{Principal: name, Role: registry.RoleAdmin}
}

func (e *env) submitContract(t testing.TB, name, version, toolsJSON, contract string) {
	t.Helper()
	_, err := e.svc.Review.Submit(context.Background(), owner, registry.Submission{ServerJSON: serverJSON(name, version, "Tickets"),
		Tools: []byte(toolsJSON), Contract: []byte(contract)})
	if err != nil {
		t.Fatalf("submit %s@%s: %v", name, version, err)
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
