package web

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// OIDCConfig turns on single sign-on through an OpenID Connect provider.
// A reviewer signs in as the principal named by PrincipalClaim of the ID
// token; that principal must exist (mcpregd user add or token create) with
// role reviewer or admin.
type OIDCConfig struct {
	// Issuer is the provider's issuer URL; discovery reads
	// Issuer/.well-known/openid-configuration.
	Issuer       string
	ClientID     string
	ClientSecret string
	// RedirectURL is this site's callback as registered with the
	// provider: https://HOST/signin/sso/callback.
	RedirectURL string
	// PrincipalClaim names the claim holding the principal name; default
	// "email", which must come with "email_verified": true.
	PrincipalClaim string
}

const (
	ssoPath         = "/signin/sso"
	ssoCallbackPath = "/signin/sso/callback"
	// ssoTimeout bounds discovery, the code exchange and key fetches.
	ssoTimeout = 10 * time.Second
)

// sso is a configured provider.
type sso struct {
	issuer   string
	claim    string
	oauth    *oauth2.Config
	verifier *oidc.IDTokenVerifier
	client   *http.Client
	sealer   flowSealer
}

// newSSO checks cfg, makes the flow sealer from the replicas' shared
// secret (see ssoflow.go) and discovers the provider.
func newSSO(cfg *OIDCConfig, flowSecret []byte) (*sso, error) {
	if err := checkOIDC(cfg); err != nil {
		return nil, fmt.Errorf("web: OIDC: %w", err)
	}
	sealer, err := newFlowSealer(flowSecret)
	if err != nil {
		return nil, fmt.Errorf("web: single sign-on: %w", err)
	}
	client := &http.Client{Timeout: ssoTimeout}
	ctx, cancel := context.WithTimeout(oidc.ClientContext(context.Background(), client), ssoTimeout)
	defer cancel()
	p, err := oidc.NewProvider(ctx, cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("web: OIDC issuer %s: discovery failed: %w", cfg.Issuer, err)
	}
	var meta struct {
		PKCE []string `json:"code_challenge_methods_supported"`
	}
	if err := p.Claims(&meta); err == nil && len(meta.PKCE) > 0 && !slices.Contains(meta.PKCE, "S256") {
		return nil, fmt.Errorf("web: OIDC issuer %s does not support PKCE with S256 (supports %v)", cfg.Issuer, meta.PKCE)
	}
	claim := cmp.Or(cfg.PrincipalClaim, "email")
	scopes := []string{oidc.ScopeOpenID, "email", "profile"}
	return &sso{issuer: cfg.Issuer, claim: claim, client: client, sealer: sealer,
		oauth: &oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: cfg.RedirectURL,
			Endpoint: p.Endpoint(), Scopes: scopes},
		verifier: p.Verifier(&oidc.Config{ClientID: cfg.ClientID})}, nil
}

func checkOIDC(cfg *OIDCConfig) error {
	if cfg.Issuer == "" || cfg.ClientID == "" || cfg.RedirectURL == "" {
		return errors.New("issuer, client id and redirect URL are all required")
	}
	u, err := url.Parse(cfg.RedirectURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !strings.HasSuffix(u.Path, ssoCallbackPath) {
		return fmt.Errorf("redirect URL %q: want an absolute http(s) URL ending in %s", cfg.RedirectURL, ssoCallbackPath)
	}
	return nil
}

// ssoStart sends the browser to the provider. It is a plain GET link (see
// signin.html): starting a flow grants nothing, since only the browser
// holding the flow cookie can finish it.
func (a *app) ssoStart(w http.ResponseWriter, r *http.Request) {
	if a.sso == nil {
		a.fail(w, r, http.StatusNotFound, "Single sign-on is not configured on this registry.")
		return
	}
	next := localPath(r.URL.Query().Get("next"))
	if _, err := a.sessionOf(r); err == nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	f := ssoFlow{State: rand.Text(), Nonce: rand.Text(), Verifier: oauth2.GenerateVerifier(), Next: next,
		Expires: time.Now().Add(ssoFlowTTL).Unix()}
	a.setFlowCookie(w, f)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, a.sso.oauth.AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier)),
		http.StatusSeeOther)
}

// ssoCallback finishes a flow: the state must match the flow cookie's,
// then the code is exchanged and the ID token verified.
func (a *app) ssoCallback(w http.ResponseWriter, r *http.Request) {
	if a.sso == nil {
		a.fail(w, r, http.StatusNotFound, "Single sign-on is not configured on this registry.")
		return
	}
	q := r.URL.Query()
	f, ok := a.flowOf(r)
	a.clearCookie(w, ssoCookie, ssoPath) // one use
	if !ok || !sameToken(f.State, q.Get("state")) {
		a.ssoRefused(w, r, "/queue", &ssoError{http.StatusBadRequest,
			"The single sign-on attempt expired or did not start in this browser. Please try again.", errors.New("bad state")})
		return
	}
	if e := q.Get("error"); e != "" {
		a.ssoRefused(w, r, f.Next, &ssoError{http.StatusUnauthorized, "The identity provider refused the sign-in: " +
			clip(strings.TrimSpace(e+" "+q.Get("error_description")), 200) + ".", errors.New("provider error " + e)})
		return
	}
	name, err := a.sso.principal(r.Context(), q.Get("code"), f)
	if err != nil {
		a.ssoRefused(w, r, f.Next, err)
		return
	}
	ws, err := a.id.SignInExternal(r.Context(), name, "oidc "+a.sso.issuer, a.remoteHost(r))
	if err != nil {
		status, msg := a.describe(r, err)
		a.renderSignIn(w, r, status, signInView{Next: f.Next}, msg)
		return
	}
	a.setSessionCookie(w, ws)
	http.Redirect(w, r, f.Next, http.StatusSeeOther)
}

// ssoError is a refused callback: what the reviewer reads, and the cause
// for the log.
type ssoError struct {
	status int
	msg    string
	cause  error
}

func (e *ssoError) Error() string { return e.msg + ": " + e.cause.Error() }

func (a *app) ssoRefused(w http.ResponseWriter, r *http.Request, next string, err error) {
	var se *ssoError
	if !errors.As(err, &se) {
		se = &ssoError{http.StatusBadGateway, "Single sign-on failed; please try again.", err}
	}
	a.log.WarnContext(r.Context(), "web: single sign-on refused", "request_id", requestID(r),
		"status", se.status, "err", se.cause)
	a.renderSignIn(w, r, se.status, signInView{Next: next}, se.msg)
}

// principal exchanges the code and returns the verified ID token's
// principal claim.
func (s *sso) principal(ctx context.Context, code string, f ssoFlow) (string, error) {
	if code == "" {
		return "", &ssoError{http.StatusBadRequest, "The identity provider sent no authorization code.", errors.New("no code")}
	}
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, oauth2.HTTPClient, s.client), ssoTimeout)
	defer cancel()
	tok, err := s.oauth.Exchange(ctx, code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return "", &ssoError{http.StatusUnauthorized, "The identity provider did not accept the sign-in code. Please try again.", err}
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return "", &ssoError{http.StatusUnauthorized, "The identity provider sent no ID token.", errors.New("no id_token")}
	}
	idt, err := s.verifier.Verify(ctx, raw)
	if err != nil {
		return "", &ssoError{http.StatusUnauthorized, "The identity provider's ID token is not valid for this registry.", err}
	}
	if !sameToken(f.Nonce, idt.Nonce) {
		return "", &ssoError{http.StatusUnauthorized, "The ID token does not belong to this sign-in attempt.", errors.New("nonce mismatch")}
	}
	return s.claimOf(idt)
}

// claimOf reads the principal claim; an e-mail address must be verified.
func (s *sso) claimOf(idt *oidc.IDToken) (string, error) {
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return "", &ssoError{http.StatusUnauthorized, "The ID token's claims could not be read.", err}
	}
	name, _ := claims[s.claim].(string)
	if name == "" {
		return "", &ssoError{http.StatusUnauthorized, fmt.Sprintf("The ID token has no %q claim to sign in with.", s.claim),
			errors.New("no claim " + s.claim)}
	}
	if s.claim == "email" && !isTrue(claims["email_verified"]) {
		return "", &ssoError{http.StatusForbidden, "The identity provider has not verified the e-mail address " + name + ".",
			errors.New("email_verified is not true for " + name)}
	}
	return name, nil
}

// isTrue accepts true and "true" (some providers send the string).
func isTrue(v any) bool {
	return v == true || v == "true"
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
