package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
)

// Cookie names. The session cookie holds the session token (only its hash
// is stored); the sign-in cookie holds the sign-in form's CSRF token.
const (
	sessionCookie = "mcpreg_session"
	signInCookie  = "mcpreg_signin"
)

// maxFormBytes bounds a posted form (a reason is at most 2000 bytes).
const maxFormBytes = 64 << 10

// viewer is the signed-in principal behind one request.
type viewer struct {
	session *identity.WebSession
	// caller is the session's caller with this request's id.
	caller *registry.Caller
}

func (v *viewer) isAdmin() bool { return v.caller.Role == registry.RoleAdmin }

type viewerKey struct{}

func viewerFrom(r *http.Request) *viewer {
	v, _ := r.Context().Value(viewerKey{}).(*viewer)
	return v
}

// sessionOf resolves the request's session cookie.
func (a *app) sessionOf(r *http.Request) (*identity.WebSession, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return nil, registry.ErrUnauthenticated
	}
	return a.id.Session(r.Context(), c.Value)
}

// withViewer resolves the session and puts its viewer in the context;
// it answers the request itself (and returns nil) when there is none.
func (a *app) withViewer(w http.ResponseWriter, r *http.Request) *http.Request {
	ws, err := a.sessionOf(r)
	if err != nil {
		a.signedOut(w, r, err)
		return nil
	}
	c := *ws.Caller
	c.RequestID = requestID(r)
	v := &viewer{session: ws, caller: &c}
	if !c.MayDecide() { // only reviewers and admins sign in; stay closed if that changes
		a.fail(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, v)), http.StatusForbidden,
			"The web UI is for reviewers and admins.")
		return nil
	}
	return r.WithContext(context.WithValue(r.Context(), viewerKey{}, v))
}

// page wraps a handler that needs a signed-in reviewer or admin.
func (a *app) page(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r = a.withViewer(w, r); r != nil {
			h(w, r)
		}
	})
}

// form wraps a state-changing handler: signed in, and the form carries
// the session's CSRF token. Nothing runs before both hold.
func (a *app) form(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if r = a.withViewer(w, r); r == nil {
			return
		}
		if err := parseForm(r); err != nil {
			a.fail(w, r, http.StatusBadRequest, "The form could not be read: "+err.Error())
			return
		}
		if !sameToken(viewerFrom(r).session.CSRF, r.PostForm.Get("csrf")) {
			a.fail(w, r, http.StatusForbidden, "The form's security token is missing or wrong. Reload the page and try again.")
			return
		}
		h(w, r)
	})
}

// adminOnly refuses everyone but admins.
func (a *app) adminOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !viewerFrom(r).isAdmin() {
			a.fail(w, r, http.StatusForbidden, "This page is for admins only.")
			return
		}
		h(w, r)
	}
}

// signedOut sends a request without a valid session to sign-in.
func (a *app) signedOut(w http.ResponseWriter, r *http.Request, err error) {
	if !errors.Is(err, registry.ErrUnauthenticated) {
		a.serviceError(w, r, err)
		return
	}
	if _, cerr := r.Cookie(sessionCookie); cerr == nil {
		a.clearCookie(w, sessionCookie, "/")
	}
	next := "/queue"
	if r.Method == http.MethodGet {
		next = r.URL.RequestURI()
	}
	http.Redirect(w, r, "/signin?next="+url.QueryEscape(next), http.StatusSeeOther)
}

func (a *app) setSessionCookie(w http.ResponseWriter, ws *identity.WebSession) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: ws.Token, Path: "/",
		MaxAge: int(identity.SessionTTL.Seconds()), HttpOnly: true, Secure: a.opt.Secure, SameSite: http.SameSiteLaxMode})
}

func (a *app) clearCookie(w http.ResponseWriter, name, path string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: path, MaxAge: -1, HttpOnly: true,
		Secure: a.opt.Secure, SameSite: http.SameSiteLaxMode})
}

// localPath returns next when it is a path on this site, else /queue: a
// sign-in link must not send anyone elsewhere.
func localPath(next string) string {
	const fallback = "/queue"
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return fallback
	}
	for _, c := range []byte(next) {
		if c < 0x20 || c == 0x7f || c == '\\' {
			return fallback
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Path == "/signin" || strings.HasPrefix(u.Path, "/signin/") || u.Path == "/signout" {
		return fallback
	}
	return next
}

// parseForm reads a posted form, refusing a field that holds the NUL
// character (U+0000): PostgreSQL cannot store it in text, and no field of
// a form needs it.
func parseForm(r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return err
	}
	for name, values := range r.Form {
		for _, v := range values {
			if strings.ContainsRune(v, 0) || strings.ContainsRune(name, 0) {
				return fmt.Errorf("the field %q holds the NUL character, which mcpreg does not store; remove it", strings.ReplaceAll(name, "\x00", ""))
			}
		}
	}
	return nil
}
