package web

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/mcpreg/mcpreg/internal/registry"
)

// The sign-in form has no session to bind a CSRF token to, so it uses a
// double-submit token: GET /signin sets a random token in a cookie scoped
// to /signin (HttpOnly, SameSite=Strict) and in the form; POST /signin
// needs both and equal. A cross-site page can neither read the cookie nor
// make the browser send it (Strict), so it cannot sign a victim in to the
// attacker's account (login CSRF). http.CrossOriginProtection, in front of
// every route, refuses cross-origin browser POSTs as well.

const signInPath = "/signin"

type signInView struct {
	Name, Next, CSRF string
	SSO              bool // offer single sign-on
}

func (a *app) signInForm(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.URL.Query().Get("next"))
	if _, err := a.sessionOf(r); err == nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	a.renderSignIn(w, r, http.StatusOK, signInView{Next: next}, "")
}

// renderSignIn shows the form with a fresh double-submit token.
func (a *app) renderSignIn(w http.ResponseWriter, r *http.Request, status int, v signInView, msg string) {
	v.CSRF = rand.Text()
	v.SSO = a.sso != nil
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: v.CSRF, Path: signInPath, MaxAge: 3600,
		HttpOnly: true, Secure: a.opt.Secure, SameSite: http.SameSiteStrictMode})
	a.render(w, r, status, "signin", page{Title: "Sign in", Error: msg, Body: v})
}

func (a *app) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := parseForm(r); err != nil {
		a.fail(w, r, http.StatusBadRequest, "The form could not be read: "+err.Error())
		return
	}
	v := signInView{Name: strings.TrimSpace(r.PostForm.Get("name")), Next: localPath(r.PostForm.Get("next"))}
	c, err := r.Cookie(signInCookie)
	if err != nil || !sameToken(c.Value, r.PostForm.Get("csrf")) {
		a.renderSignIn(w, r, http.StatusForbidden, v, "The sign-in form expired or did not come from this site. Please try again.")
		return
	}
	ws, err := a.id.SignIn(r.Context(), v.Name, r.PostForm.Get("password"), a.remoteHost(r))
	if err != nil {
		status, msg := a.describe(r, err)
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", retryAfter(err))
		}
		a.renderSignIn(w, r, status, v, msg)
		return
	}
	a.clearCookie(w, signInCookie, signInPath)
	a.setSessionCookie(w, ws)
	http.Redirect(w, r, v.Next, http.StatusSeeOther)
}

func (a *app) signOut(w http.ResponseWriter, r *http.Request) {
	if err := a.id.SignOut(r.Context(), viewerFrom(r).session.Token); err != nil && !errors.Is(err, registry.ErrUnauthenticated) {
		a.serviceError(w, r, err)
		return
	}
	a.clearCookie(w, sessionCookie, "/")
	http.Redirect(w, r, signInPath, http.StatusSeeOther)
}

// remoteHost is the client address that sign-in throttling counts: the
// peer, or, when the peer is a trusted proxy, the nearest address in
// X-Forwarded-For that is not one (forwarded headers from anyone else are
// ignored, since clients can write them).
func (a *app) remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if !a.trustedProxy(host) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if hop == "" {
			continue
		}
		if !a.trustedProxy(hop) {
			return hop
		}
		host = hop
	}
	return host
}

func (a *app) trustedProxy(host string) bool {
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	for _, p := range a.opt.TrustedProxies {
		if p.Contains(ip.Unmap()) {
			return true
		}
	}
	return false
}

// retryAfter is the Retry-After of a refused sign-in: what the refusal
// says, else a minute (the throttle of failed sign-ins).
func retryAfter(err error) string {
	if d, ok := registry.RetryAfter(err); ok {
		return strconv.Itoa(int(d / time.Second))
	}
	return "60"
}

// sameToken compares a token in constant time; an empty token never matches.
func sameToken(want, got string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}
