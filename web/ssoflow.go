package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// The single sign-on flow keeps what the callback must check (state,
// nonce, PKCE verifier, the page to return to) in a cookie scoped to
// /signin/sso: HttpOnly, SameSite=Lax (the callback is a cross-site
// top-level GET from the identity provider, which Lax lets through and
// Strict would not), ten minutes. Its content is sealed with HMAC-SHA256
// under a key made at start, so a client can read but not forge or alter
// it; a cookie from another process (a restart, another replica) fails
// and the reviewer starts again.

const (
	ssoCookie  = "mcpreg_sso"
	ssoFlowTTL = 10 * time.Minute
)

// ssoFlow is one sign-in in progress.
type ssoFlow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Next     string `json:"x"`
	Expires  int64  `json:"e"`
}

// flowSealer seals and opens flow cookies.
type flowSealer struct{ key []byte }

func newFlowSealer() flowSealer {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // never fails (crypto/rand)
	return flowSealer{key: key}
}

func (s flowSealer) mac(payload string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("mcpreg sso flow\x00" + payload))
	return m.Sum(nil)
}

func (s flowSealer) seal(f ssoFlow) string {
	b, _ := json.Marshal(f) // strings and an int: cannot fail
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(s.mac(payload))
}

// open returns the flow of a sealed value that is intact and not expired.
func (s flowSealer) open(value string, now time.Time) (ssoFlow, bool) {
	var f ssoFlow
	payload, sig, ok := strings.Cut(value, ".")
	if !ok {
		return f, false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac(payload)) {
		return f, false
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || json.Unmarshal(b, &f) != nil || now.Unix() >= f.Expires || f.State == "" {
		return f, false
	}
	return f, true
}

func (a *app) setFlowCookie(w http.ResponseWriter, f ssoFlow) {
	http.SetCookie(w, &http.Cookie{Name: ssoCookie, Value: a.sso.sealer.seal(f), Path: ssoPath,
		MaxAge: int(ssoFlowTTL.Seconds()), HttpOnly: true, Secure: a.opt.Secure, SameSite: http.SameSiteLaxMode})
}

// flowOf reads the request's flow cookie.
func (a *app) flowOf(r *http.Request) (ssoFlow, bool) {
	c, err := r.Cookie(ssoCookie)
	if err != nil {
		return ssoFlow{}, false
	}
	return a.sso.sealer.open(c.Value, time.Now())
}
