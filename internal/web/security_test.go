package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
)

const weather = "io.github.acme/weather"

func auditCount(t *testing.T, e *env) int64 {
	t.Helper()
	rep, err := e.svc.Audit.VerifyAuditChain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep.Events
}

func TestSignedOutRequestsGoToSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.submit(t, owner, weather, "1.0.0", tools)
	b := e.browser(t)
	for _, path := range []string{"/queue", "/review/" + weather + "/1.0.0", "/servers?q=x&state=approved",
		"/servers/" + weather, "/quarantine", "/audit", "/admin/tokens"} {
		r := b.get(path)
		if want := "/signin?next=" + url.QueryEscape(path); r.Status != http.StatusSeeOther || r.Location != want {
			t.Errorf("GET %s: %d to %q, want 303 to %q", path, r.Status, r.Location, want)
		}
	}
	if r := b.get("/"); r.Status != http.StatusSeeOther || r.Location != "/signin" {
		t.Errorf("GET /: %d to %q", r.Status, r.Location)
	}
	r := b.post("/review/"+weather+"/1.0.0/approve", url.Values{"reason": {"ok"}, "csrf": {"x"}})
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Location, "/signin") {
		t.Errorf("signed-out POST: %d to %q", r.Status, r.Location)
	}
	// A forged or stale session cookie is no better, and gets cleared.
	u, _ := url.Parse(e.srv.URL)
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: "mcpreg_session", Value: "forged"}})
	if r := b.get("/queue"); r.Status != http.StatusSeeOther || !strings.Contains(r.Header.Get("Set-Cookie"), "Max-Age=0") {
		t.Errorf("forged session: %d, cookie %q", r.Status, r.Header.Get("Set-Cookie"))
	}
	if got := e.weatherState(t); got != "pending_review" {
		t.Fatalf("state %s after signed-out posts", got)
	}
}

func TestStateChangesNeedTheFormToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.submit(t, owner, weather, "1.0.0", tools)
	alice := e.browser(t).signIn("alice")
	bobToken := e.browser(t).signIn("bob").csrf
	events := auditCount(t, e)
	path := "/review/" + weather + "/1.0.0/approve"
	cases := []struct {
		name    string
		form    url.Values
		headers []string
	}{
		{"no token", url.Values{"reason": {"looks fine"}}, nil},
		{"empty token", url.Values{"reason": {"looks fine"}, "csrf": {""}}, nil},
		{"wrong token", url.Values{"reason": {"looks fine"}, "csrf": {alice.csrf + "x"}}, nil},
		{"another session's token", url.Values{"reason": {"looks fine"}, "csrf": {bobToken}}, nil},
		{"token in the query only", url.Values{"reason": {"looks fine"}}, nil},
		{"cross-site request", url.Values{"reason": {"looks fine"}, "csrf": {alice.csrf}}, []string{"Sec-Fetch-Site", "cross-site"}},
		{"foreign origin", url.Values{"reason": {"looks fine"}, "csrf": {alice.csrf}}, []string{"Origin", "https://evil.example"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := path
			if c.name == "token in the query only" {
				p += "?csrf=" + url.QueryEscape(alice.csrf)
			}
			if r := alice.post(p, c.form, c.headers...); r.Status != http.StatusForbidden {
				t.Fatalf("status %d, want 403", r.Status)
			}
		})
	}
	if got := e.weatherState(t); got != "pending_review" {
		t.Fatalf("state %s, want pending_review: a refused form changed something", got)
	}
	if n := auditCount(t, e); n != events {
		t.Fatalf("audit events %d, want %d", n, events)
	}
	if r := alice.decide(weather, "1.0.0", "approve", "looks fine"); r.Status != http.StatusSeeOther {
		t.Fatalf("the same form with its token: %d\n%s", r.Status, r.Body)
	}
}

func TestReviewerCannotSeeAdminPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if _, err := e.id.CreateToken(context.Background(), bootstrap, identity.NewToken{Principal: "acme-ci",
		Role: registry.RoleOwner, Namespaces: []string{"io.github.acme"}, Name: "ci"}); err != nil {
		t.Fatal(err)
	}
	alice := e.browser(t).signIn("alice")
	r := alice.get("/admin/tokens")
	if r.Status != http.StatusForbidden {
		t.Fatalf("reviewer on /admin/tokens: %d, want 403", r.Status)
	}
	if strings.Contains(r.Body, "acme-ci") || strings.Contains(alice.get("/queue").Body, `href="/admin/tokens"`) {
		t.Fatal("a reviewer sees admin content or the admin link")
	}
	root := e.browser(t).signIn("root")
	r = root.get("/admin/tokens")
	if r.Status != http.StatusOK {
		t.Fatalf("admin on /admin/tokens: %d", r.Status)
	}
	mustContain(t, r.Body, "acme-ci", `<th scope="col">Principal</th>`)
}

func TestHTMLInDescriptionsAndNamesIsEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hostile := `{"tools":[{"name":"x<b>bold</b>","title":"<img src=x onerror=alert(2)>",
 "description":"Reads the weather. <script>alert(1)</script> \"quoted\" & more\u200b",
 "inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"</pre><script>alert(3)</script>"}}}}]}`
	_, err := e.svc.Review.Submit(context.Background(), owner, registry.Submission{
		ServerJSON: serverJSON(weather, "1.0.0", "<script>alert(4)</script>"), Tools: []byte(hostile)})
	if err != nil {
		t.Fatal(err)
	}
	alice := e.browser(t).signIn("alice")
	for _, path := range []string{"/review/" + weather + "/1.0.0", "/servers", "/servers/" + weather, "/queue"} {
		r := alice.get(path)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d", path, r.Status)
		}
		for _, raw := range []string{"<script>alert", "<img src=x", "<b>bold"} {
			if strings.Contains(r.Body, raw) {
				t.Errorf("%s renders %q unescaped", path, raw)
			}
		}
	}
	r := alice.get("/review/" + weather + "/1.0.0")
	mustContain(t, r.Body, "&lt;script&gt;alert(1)&lt;/script&gt;", "x&lt;b&gt;bold&lt;/b&gt;",
		"&lt;img src=x onerror=alert(2)&gt;", "&lt;script&gt;alert(4)&lt;/script&gt;",
		`<mark class="invisible-char" title="hidden character">⟦U&#43;200B⟧</mark>`)
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}

// TestFormTextWithNULRefused: a form field holding the NUL character
// (which PostgreSQL cannot store as text; a review reason carrying one
// failed there with an internal error) is refused as unreadable, naming
// the field, and changes nothing.
func TestFormTextWithNULRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.submit(t, owner, weather, "1.0.0", tools)
	alice := e.browser(t).signIn("alice")
	events := auditCount(t, e)
	r := alice.decide(weather, "1.0.0", "approve", "looks\x00fine")
	if r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "NUL character") || !strings.Contains(r.Body, "reason") {
		t.Fatalf("reason with NUL: %d\n%s", r.Status, r.Body)
	}
	if got := e.weatherState(t); got != "pending_review" {
		t.Fatalf("state %s, want pending_review", got)
	}
	if n := auditCount(t, e); n != events {
		t.Fatalf("audit events %d, want %d", n, events)
	}
}
