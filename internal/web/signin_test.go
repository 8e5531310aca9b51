package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/identity"
)

func TestSignInAndOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := e.browser(t)

	r := b.trySignIn("alice", "not the password", "/queue")
	if r.Status != http.StatusUnauthorized {
		t.Fatalf("wrong password: status %d, want 401", r.Status)
	}
	mustContain(t, r.Body, "wrong name or password", `value="alice"`)
	if strings.Contains(r.Header.Get("Set-Cookie"), "mcpreg_session=") {
		t.Fatalf("wrong password set a session cookie")
	}

	r = b.trySignIn("alice", password, "/servers?q=weather")
	if r.Status != http.StatusSeeOther || r.Location != "/servers?q=weather" {
		t.Fatalf("sign in: %d to %q, want 303 to the next page", r.Status, r.Location)
	}
	c := sessionCookie(t, r)
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure ||
		c.MaxAge != int(identity.SessionTTL/time.Second) || len(c.Value) < 32 {
		t.Errorf("session cookie %+v: want HttpOnly, SameSite=Lax, Path=/, Max-Age of the session TTL", c)
	}
	q := b.get("/queue")
	if q.Status != http.StatusOK {
		t.Fatalf("queue: %d", q.Status)
	}
	mustContain(t, q.Body, "Signed in as <strong>alice</strong>", `<main id="main"`, `href="#main"`)
	b.csrf = formToken(t, q.Body)

	if r := b.post("/signout", url.Values{}); r.Status != http.StatusForbidden {
		t.Fatalf("sign-out without token: %d, want 403", r.Status)
	}
	if r := b.get("/queue"); r.Status != http.StatusOK {
		t.Fatalf("session ended by a sign-out without token: %d", r.Status)
	}
	r = b.post("/signout", url.Values{"csrf": {b.csrf}})
	if r.Status != http.StatusSeeOther || r.Location != "/signin" {
		t.Fatalf("sign out: %d to %q", r.Status, r.Location)
	}
	if r := b.get("/queue"); r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Location, "/signin") {
		t.Fatalf("after sign-out: %d to %q, want a redirect to sign-in", r.Status, r.Location)
	}
}

func TestSecureCookies(t *testing.T) {
	t.Parallel()
	// Options.Secure is the TLS case: every cookie the UI sets is Secure.
	// (The test client talks plain HTTP, so it sends the cookie by hand.)
	e := newEnvWith(t, true)
	e.user(t, "alice")
	b := e.browser(t)
	form := b.get("/signin")
	var signIn *http.Cookie
	for _, c := range cookies(form) {
		signIn = c
	}
	if signIn == nil {
		t.Fatal("GET /signin set no cookie")
	}
	r := b.post("/signin", url.Values{"name": {"alice"}, "password": {password}, "csrf": {formToken(t, form.Body)}},
		"Cookie", signIn.Name+"="+signIn.Value)
	if r.Status != http.StatusSeeOther {
		t.Fatalf("sign in: %d", r.Status)
	}
	sessionCookie(t, r)
	for _, c := range append(cookies(form), cookies(r)...) {
		if !c.Secure || !c.HttpOnly {
			t.Errorf("cookie %s: Secure %v, HttpOnly %v; want both", c.Name, c.Secure, c.HttpOnly)
		}
	}
}

func TestSignInFormNeedsItsToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user(t, "alice")
	b := e.browser(t)
	b.get("/signin") // sets the sign-in cookie
	r := b.post("/signin", url.Values{"name": {"alice"}, "password": {password}, "csrf": {"forged"}})
	if r.Status != http.StatusForbidden {
		t.Fatalf("sign-in with a wrong form token: %d, want 403", r.Status)
	}
	fresh := e.browser(t) // no sign-in cookie at all
	r = fresh.post("/signin", url.Values{"name": {"alice"}, "password": {password}, "csrf": {formToken(t, b.get("/signin").Body)}})
	if r.Status != http.StatusForbidden {
		t.Fatalf("sign-in without the form cookie: %d, want 403", r.Status)
	}
	if r := fresh.get("/queue"); r.Status != http.StatusSeeOther {
		t.Fatalf("signed in without a valid form token")
	}
}

func TestSignInThrottlesFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := e.browser(t)
	var last reply
	for range 30 {
		if last = b.trySignIn("mallory", "guessing-password", "/queue"); last.Status != http.StatusUnauthorized {
			break
		}
	}
	if last.Status != http.StatusTooManyRequests {
		t.Fatalf("after repeated failures: %d, want 429", last.Status)
	}
	mustContain(t, last.Body, `role="alert"`, "too many failed sign-ins")
	if last.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
}

func TestNextStaysOnThisSite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, next := range []string{"//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", "/signout", ""} {
		b := e.browser(t)
		if r := b.trySignIn("alice", password, next); r.Status != http.StatusSeeOther || r.Location != "/queue" {
			t.Errorf("next %q: %d to %q, want /queue", next, r.Status, r.Location)
		}
	}
}

func sessionCookie(t *testing.T, r reply) *http.Cookie {
	t.Helper()
	for _, c := range cookies(r) {
		if c.Name == "mcpreg_session" {
			return c
		}
	}
	t.Fatalf("no session cookie in %v", r.Header["Set-Cookie"])
	return nil
}

func cookies(r reply) []*http.Cookie {
	return (&http.Response{Header: r.Header}).Cookies()
}
