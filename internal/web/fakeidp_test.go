package web_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// idpKey signs every fake provider's ID tokens.
var idpKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// fakeIDP is an in-process OpenID Connect provider: discovery, JWKS, an
// authorization endpoint that approves at once, and a token endpoint that
// checks the PKCE verifier and issues an RS256 ID token.
type fakeIDP struct {
	t        testing.TB
	URL      string
	clientID string
	secret   string
	// claims, when set, edits an ID token's claims before signing.
	claims func(map[string]any)
	// deny, when set, is the error /authorize answers with.
	deny string
	// issuer, when set, is the issuer discovery claims.
	issuer string
	// pkce is code_challenge_methods_supported.
	pkce []string

	mu    sync.Mutex
	codes map[string]authRequest
}

// authRequest is what /authorize remembered of a request.
type authRequest struct {
	nonce, challenge, redirect string
}

func newFakeIDP(t testing.TB, edit func(*fakeIDP)) *fakeIDP {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	p := &fakeIDP{t: t, URL: "http://" + srv.Listener.Addr().String(), clientID: "mcpreg-web", secret: "client-secret",
		pkce: []string{"S256"}, codes: map[string]authRequest{}}
	if edit != nil {
		edit(p)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

func (p *fakeIDP) discovery(w http.ResponseWriter, _ *http.Request) {
	iss := p.issuer
	if iss == "" {
		iss = p.URL
	}
	writeJSON(w, http.StatusOK, map[string]any{"issuer": iss, "authorization_endpoint": p.URL + "/authorize",
		"token_endpoint": p.URL + "/token", "jwks_uri": p.URL + "/jwks", "response_types_supported": []string{"code"},
		"subject_types_supported": []string{"public"}, "id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported": p.pkce})
}

func (p *fakeIDP) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &idpKey().PublicKey, KeyID: "test-key", Algorithm: string(jose.RS256), Use: "sig"}}})
}

// authorize approves at once: back to the redirect URI with a code, or
// with p.deny as the error.
func (p *fakeIDP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("response_type") != "code" || q.Get("client_id") != p.clientID || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") == "" || q.Get("nonce") == "" || q.Get("state") == "" ||
		!slices.Contains(strings.Fields(q.Get("scope")), "openid") {
		p.t.Errorf("fake IdP: bad authorization request %s", r.URL.RawQuery)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	back := mustURL(q.Get("redirect_uri"))
	v := url.Values{"state": {q.Get("state")}}
	if p.deny != "" {
		v.Set("error", p.deny)
		v.Set("error_description", "The user said no")
	} else {
		code := rand.Text()
		p.mu.Lock()
		p.codes[code] = authRequest{nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirect: back.String()}
		p.mu.Unlock()
		v.Set("code", code)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token exchanges a code once, for the client, with the right verifier.
func (p *fakeIDP) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	p.mu.Lock()
	req, known := p.codes[r.PostForm.Get("code")]
	delete(p.codes, r.PostForm.Get("code"))
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	switch {
	case id != p.clientID || secret != p.secret:
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
	case r.PostForm.Get("grant_type") != "authorization_code" || !known || r.PostForm.Get("redirect_uri") != req.redirect ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != req.challenge:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
	default:
		writeJSON(w, http.StatusOK, map[string]any{"access_token": rand.Text(), "token_type": "Bearer", "expires_in": 300,
			"id_token": p.idToken(req.nonce)})
	}
}

// idToken signs the claims of rev@example.com, edited by p.claims.
func (p *fakeIDP) idToken(nonce string) string {
	now := time.Now()
	c := map[string]any{"iss": p.URL, "aud": p.clientID, "sub": "user-1", "email": "rev@example.com",
		"email_verified": true, "nonce": nonce, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
	if p.claims != nil {
		p.claims(c)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256,
		Key: jose.JSONWebKey{Key: idpKey(), KeyID: "test-key"}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		p.t.Errorf("fake IdP: %v", err) // a handler goroutine: no Fatal
		return ""
	}
	payload, _ := json.Marshal(c)
	jws, err := signer.Sign(payload)
	if err != nil {
		p.t.Errorf("fake IdP: %v", err)
		return ""
	}
	s, _ := jws.CompactSerialize()
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
