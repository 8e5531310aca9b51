package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/web"
)

// ssoEnv serves the web UI of in with single sign-on through idp.
func ssoEnv(t testing.TB, in *servertest.Instance, idp *fakeIDP, claim string) *env {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	h, err := web.New(in.Service, in.Identity, slog.New(slog.DiscardHandler), web.Options{OIDC: ssoConfig(idp,
		"http://"+srv.Listener.Addr().String()+"/signin/sso/callback", claim)})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(srv.Close)
	return &env{users: map[string]bool{}, svc: in.Service, id: in.Identity, st: in.Store, h: h, srv: srv}
}

func ssoConfig(idp *fakeIDP, redirect, claim string) *web.OIDCConfig {
	return &web.OIDCConfig{Issuer: idp.URL, ClientID: "mcpreg-web", ClientSecret: "client-secret",
		RedirectURL: redirect, PrincipalClaim: claim}
}

// visit gets an absolute URL.
func (b *browser) visit(abs string) reply {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, abs, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req)
}

// ssoSignIn follows the flow from the sign-in page's link through the
// provider to the callback, whose URL edit may change first.
func (b *browser) ssoSignIn(next string, edit func(*url.URL)) reply {
	b.t.Helper()
	page := b.get("/signin?next=" + url.QueryEscape(next))
	m := ssoLink.FindStringSubmatch(page.Body)
	if m == nil {
		b.t.Fatalf("sign-in page lacks the single sign-on link:\n%s", page.Body)
	}
	link := html.UnescapeString(m[1])
	if got := mustURL(link).Query().Get("next"); got != next {
		b.t.Fatalf("single sign-on link %q carries next %q, want %q", link, got, next)
	}
	start := b.get(link)
	if start.Status != http.StatusSeeOther || !strings.Contains(start.Location, "/authorize?") {
		b.t.Fatalf("start: %d to %q, want a redirect to the provider", start.Status, start.Location)
	}
	flow := cookieNamed(b.t, start, "mcpreg_sso")
	if !flow.HttpOnly || flow.SameSite != http.SameSiteLaxMode || flow.Path != "/signin/sso" || flow.MaxAge <= 0 || flow.MaxAge > 600 {
		b.t.Errorf("flow cookie %+v: want HttpOnly, SameSite=Lax, Path=/signin/sso, short-lived", flow)
	}
	back := b.visit(start.Location)
	if back.Status != http.StatusFound {
		b.t.Fatalf("provider: %d %s", back.Status, back.Body)
	}
	cb := mustURL(back.Location)
	if edit != nil {
		edit(cb)
	}
	return b.visit(cb.String())
}

var ssoLink = regexp.MustCompile(`<a class="button" href="(/signin/sso\?[^"]*)">Sign in with single sign-on</a>`)

func cookieNamed(t testing.TB, r reply, name string) *http.Cookie {
	t.Helper()
	for _, c := range cookies(r) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s cookie in %v", name, r.Header["Set-Cookie"])
	return nil
}

// TestSingleSignOn: a verified identity from the provider signs in as the
// principal it names; anything off (the provider's refusal, the state,
// nonce, audience, expiry, an unverified address, an unknown principal or
// one who is not a reviewer or admin) is refused with a 4xx and no session.
func TestSingleSignOn(t *testing.T) {
	t.Parallel()
	in := servertest.Start(t, "sqlite3")
	ctx := context.Background()
	in.Token(t, "rev@example.com", registry.RoleReviewer)
	in.Token(t, "own@example.com", registry.RoleOwner, "io.github.acme")
	in.Token(t, "rita", registry.RoleReviewer)
	if err := in.Identity.SetPassword(ctx, bootstrap, "root@example.com", registry.RoleAdmin, password); err != nil {
		t.Fatal(err)
	}
	set := func(k string, v any) func(map[string]any) { return func(c map[string]any) { c[k] = v } }
	cases := []struct {
		name    string
		claim   string // PrincipalClaim
		claims  func(map[string]any)
		deny    string
		edit    func(*url.URL)
		status  int
		want    string
		session string // the principal signed in, for status 303
	}{
		{name: "reviewer", status: http.StatusSeeOther, session: "rev@example.com"},
		{name: "admin with a password", claims: set("email", "root@example.com"), status: http.StatusSeeOther, session: "root@example.com"},
		{name: "other claim", claim: "preferred_username", claims: func(c map[string]any) {
			c["preferred_username"], c["email_verified"] = "rita", false
		}, status: http.StatusSeeOther, session: "rita"},
		{name: "unknown principal", claims: set("email", "nobody@example.com"), status: http.StatusForbidden,
			want: "no web user nobody@example.com: an admin creates it with mcpregd user add"},
		{name: "owner", claims: set("email", "own@example.com"), status: http.StatusForbidden, want: "the web UI is for reviewers and admins"},
		{name: "wrong nonce", claims: set("nonce", "another"), status: http.StatusUnauthorized, want: "does not belong to this sign-in attempt"},
		{name: "wrong audience", claims: set("aud", "another-client"), status: http.StatusUnauthorized, want: "not valid for this registry"},
		{name: "wrong issuer", claims: set("iss", "https://idp.example.com"), status: http.StatusUnauthorized, want: "not valid for this registry"},
		{name: "expired", claims: set("exp", time.Now().Add(-time.Minute).Unix()), status: http.StatusUnauthorized, want: "not valid for this registry"},
		{name: "email not verified", claims: set("email_verified", false), status: http.StatusForbidden, want: "has not verified the e-mail address rev@example.com"},
		{name: "email_verified missing", claims: func(c map[string]any) { delete(c, "email_verified") }, status: http.StatusForbidden, want: "has not verified"},
		{name: "claim missing", claim: "preferred_username", status: http.StatusUnauthorized, want: `no &#34;preferred_username&#34; claim`},
		{name: "provider refuses", deny: "access_denied", status: http.StatusUnauthorized, want: "refused the sign-in: access_denied The user said no"},
		{name: "tampered state", edit: setQuery("state", "forged"), status: http.StatusBadRequest, want: "did not start in this browser"},
		{name: "no state", edit: setQuery("state", ""), status: http.StatusBadRequest, want: "did not start in this browser"},
		{name: "forged code", edit: setQuery("code", "forged"), status: http.StatusUnauthorized, want: "did not accept the sign-in code"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			idp := newFakeIDP(t, func(p *fakeIDP) { p.claims, p.deny = c.claims, c.deny })
			b := ssoEnv(t, in, idp, c.claim).browser(t)
			r := b.ssoSignIn("/servers?q=x", c.edit)
			if r.Status != c.status {
				t.Fatalf("callback: %d, want %d\n%s", r.Status, c.status, r.Body)
			}
			if cookieNamed(t, r, "mcpreg_sso").MaxAge >= 0 {
				t.Errorf("the callback did not clear the flow cookie")
			}
			if c.session == "" {
				mustContain(t, r.Body, c.want, "Sign in with single sign-on")
				assertSignedOut(t, b, r)
				return
			}
			if r.Location != "/servers?q=x" {
				t.Errorf("signed in to %q, want the next page", r.Location)
			}
			if s := sessionCookie(t, r); !s.HttpOnly || s.MaxAge != int(identity.SessionTTL/time.Second) {
				t.Errorf("session cookie %+v", s)
			}
			mustContain(t, b.get("/queue").Body, "Signed in as <strong>"+c.session+"</strong>")
		})
	}
}

func setQuery(k, v string) func(*url.URL) {
	return func(u *url.URL) {
		q := u.Query()
		q.Set(k, v)
		u.RawQuery = q.Encode()
	}
}

func assertSignedOut(t *testing.T, b *browser, r reply) {
	t.Helper()
	if strings.Contains(strings.Join(r.Header["Set-Cookie"], "\n"), "mcpreg_session=") {
		t.Errorf("a refused sign-in set a session cookie: %v", r.Header["Set-Cookie"])
	}
	if q := b.get("/queue"); q.Status != http.StatusSeeOther {
		t.Errorf("queue after a refused sign-in: %d, want a redirect to sign-in", q.Status)
	}
}

// TestSingleSignOnFlowBinding: the callback only finishes a flow in the
// browser that started it, with the flow cookie as the server sealed it.
func TestSingleSignOnFlowBinding(t *testing.T) {
	t.Parallel()
	in := servertest.Start(t, "sqlite3")
	in.Token(t, "rev@example.com", registry.RoleReviewer)
	e := ssoEnv(t, in, newFakeIDP(t, nil), "")
	cases := []struct {
		name   string
		cookie func(string) string // the flow cookie the callback gets; "" none
	}{
		{"another browser", func(string) string { return "" }},
		{"cookie edited", func(v string) string {
			payload, sig, _ := strings.Cut(v, ".")
			b, _ := base64.RawURLEncoding.DecodeString(payload)
			b = bytes.Replace(b, []byte(`"x":"/queue"`), []byte(`"x":"/audit"`), 1)
			return base64.RawURLEncoding.EncodeToString(b) + "." + sig
		}},
		{"signature dropped", func(v string) string { payload, _, _ := strings.Cut(v, "."); return payload }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := e.browser(t)
			start := b.get("/signin/sso")
			flow := cookieNamed(t, start, "mcpreg_sso")
			back := b.visit(start.Location)
			other := e.browser(t) // the victim of a login CSRF, or a forger
			if v := c.cookie(flow.Value); v != "" {
				other.c.Jar.SetCookies(mustURL(e.srv.URL+"/signin/sso"), []*http.Cookie{{Name: "mcpreg_sso", Value: v, Path: "/signin/sso"}})
			}
			r := other.visit(back.Location)
			if r.Status != http.StatusBadRequest {
				t.Fatalf("callback: %d, want 400\n%s", r.Status, r.Body)
			}
			mustContain(t, r.Body, "did not start in this browser")
			assertSignedOut(t, other, r)
		})
	}
}

// TestSingleSignOnConfig: web.New discovers the provider and fails when it
// cannot; without OIDC there is no single sign-on.
func TestSingleSignOnConfig(t *testing.T) {
	t.Parallel()
	in := servertest.Start(t, "sqlite3")
	const cb = "https://mcpreg.example.com/signin/sso/callback"
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	cases := []struct {
		name string
		cfg  *web.OIDCConfig
		want string
	}{
		{"unreachable", &web.OIDCConfig{Issuer: gone.URL, ClientID: "c", RedirectURL: cb}, "discovery failed"},
		{"no discovery document", &web.OIDCConfig{Issuer: newFakeIDP(t, nil).URL + "/tenant", ClientID: "c", RedirectURL: cb}, "404"},
		{"issuer mismatch", ssoConfig(newFakeIDP(t, func(p *fakeIDP) { p.issuer = "https://evil.example.com" }), cb, ""), "evil.example.com"},
		{"no S256", ssoConfig(newFakeIDP(t, func(p *fakeIDP) { p.pkce = []string{"plain"} }), cb, ""), "S256"},
		{"no client id", &web.OIDCConfig{Issuer: newFakeIDP(t, nil).URL, RedirectURL: cb}, "client id"},
		{"relative redirect", ssoConfig(newFakeIDP(t, nil), "/signin/sso/callback", ""), "absolute http(s) URL"},
		{"other callback path", ssoConfig(newFakeIDP(t, nil), "https://mcpreg.example.com/oidc", ""), "/signin/sso/callback"},
	}
	for _, c := range cases {
		_, err := web.New(in.Service, in.Identity, slog.New(slog.DiscardHandler), web.Options{OIDC: c.cfg})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}

	b := newEnv(t).browser(t)
	if r := b.get("/signin"); strings.Contains(r.Body, "single sign-on") {
		t.Errorf("sign-in page offers single sign-on without OIDC")
	}
	for _, p := range []string{"/signin/sso", "/signin/sso/callback?code=x&state=y"} {
		if r := b.get(p); r.Status != http.StatusNotFound {
			t.Errorf("GET %s without OIDC: %d, want 404", p, r.Status)
		}
	}
}
