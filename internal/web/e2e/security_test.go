package e2e_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/storetest"
)

// webClient is a plain HTTP client with a cookie jar that does not follow
// redirects, so that a test sees each 303.
type webClient struct {
	t    *testing.T
	base string
	http *http.Client
}

func newWebClient(t *testing.T, base string) *webClient {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &webClient{t: t, base: base, http: &http.Client{Jar: jar, Timeout: cmdTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// send makes a request and returns the status, the Location header and
// the body.
func (c *webClient) send(method, path string, form url.Values, header http.Header) (int, string, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrfOf reads the CSRF token that a page's forms carry.
func (c *webClient) csrfOf(path string) string {
	c.t.Helper()
	st, _, body := c.send(http.MethodGet, path, nil, nil)
	m := csrfField.FindStringSubmatch(body)
	if st != http.StatusOK || m == nil {
		c.t.Fatalf("GET %s: status %d, no CSRF field", path, st)
	}
	return m[1]
}

// signIn signs user in through the form (double-submit token included).
func (c *webClient) signIn(user string) {
	c.t.Helper()
	form := url.Values{"csrf": {c.csrfOf("/signin")}, "name": {user}, "password": {password(user)}, "next": {"/queue"}}
	if st, loc, body := c.send(http.MethodPost, "/signin", form, nil); st != http.StatusSeeOther || loc != "/queue" {
		c.t.Fatalf("sign-in of %s: status %d, Location %q\n%s", user, st, loc, body)
	}
}

// TestWebSecurity checks over plain HTTP: signed-out requests go to
// sign-in; a state-changing POST without the session's CSRF token, with a
// wrong one, or from another origin is refused with 403 and changes
// nothing (the same POST with the token then works, so the refusals are
// about the token); a reviewer gets 403 on the admin pages. On each
// dialect.
func TestWebSecurity(t *testing.T) {
	storetest.EachDialect(t, webSecurity)
}

func webSecurity(t *testing.T, dialect string) {
	reg := startRegistry(t, dialect)
	reg.addUser(t, "rita", "reviewer", password("rita"))
	owner := reg.token(t, "acme-ci", "owner", "io.github.acme")
	submitOffline(t, reg, owner)
	reject := "/review/" + weather + "/1.0.0/reject"
	state := func() string { return reg.firstVersion(t, owner, weather).State }

	anon := newWebClient(t, reg.url)
	if st, loc, _ := anon.send(http.MethodGet, "/queue", nil, nil); st != http.StatusSeeOther || loc != "/signin?next=%2Fqueue" {
		t.Errorf("signed-out GET /queue: status %d, Location %q; want 303 to /signin?next=%%2Fqueue", st, loc)
	}
	form := url.Values{"reason": {"not wanted"}}
	if st, loc, _ := anon.send(http.MethodPost, reject, form, nil); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/signin") {
		t.Errorf("signed-out POST: status %d, Location %q; want 303 to /signin", st, loc)
	}

	rita := newWebClient(t, reg.url)
	rita.signIn("rita")
	token := rita.csrfOf("/review/" + weather + "/1.0.0")
	refusals := []struct {
		name   string
		form   url.Values
		header http.Header
	}{
		{"no CSRF token", url.Values{"reason": {"not wanted"}}, nil},
		{"a wrong CSRF token", url.Values{"reason": {"not wanted"}, "csrf": {token + "x"}}, nil},
		{"another origin", url.Values{"reason": {"not wanted"}, "csrf": {token}},
			http.Header{"Origin": {"http://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}},
	}
	for _, r := range refusals {
		if st, _, _ := rita.send(http.MethodPost, reject, r.form, r.header); st != http.StatusForbidden {
			t.Errorf("POST with %s: status %d, want 403", r.name, st)
		}
		if s := state(); s != "pending_review" {
			t.Fatalf("POST with %s changed the state to %q", r.name, s)
		}
	}
	form.Set("csrf", token)
	if st, loc, _ := rita.send(http.MethodPost, reject, form, nil); st != http.StatusSeeOther || state() != "rejected" {
		t.Errorf("POST with the CSRF token: status %d (Location %q), state %q; want 303 and rejected", st, loc, state())
	}
	if st, _, _ := rita.send(http.MethodGet, "/admin/tokens", nil, nil); st != http.StatusForbidden {
		t.Errorf("reviewer GET /admin/tokens: status %d, want 403", st)
	}
}

// submitOffline submits weather 1.0.0 with a tools file (no live read).
func submitOffline(t *testing.T, reg *registryProc, owner string) {
	t.Helper()
	dir := t.TempDir()
	sj, tools := filepath.Join(dir, "server.json"), filepath.Join(dir, "tools.json")
	doc := `{"$schema":"` + schemaURL + `","name":"` + weather + `","description":"Weather","version":"1.0.0",
 "remotes":[{"type":"streamable-http","url":"https://weather.acme.example/mcp"}]}`
	list := `{"tools":[{"name":"get_forecast","description":"` + forecast + `","inputSchema":` + citySchema + `}]}`
	for p, s := range map[string]string{sj: doc, tools: list} {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	reg.mustCLI(t, owner, "submit", "--server-json", sj, "--tools", tools)
}
