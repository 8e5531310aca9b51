package web

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The single sign-on flow keeps what the callback must check (state,
// nonce, PKCE verifier, the page to return to) in a cookie scoped to
// /signin/sso: HttpOnly, SameSite=Lax (the callback is a cross-site
// top-level GET from the identity provider, which Lax lets through and
// Strict would not), ten minutes. Its content is sealed with HMAC-SHA256,
// so a client can read but not forge or alter it. The key is derived from
// Options.FlowSecret, which every replica shares, so the callback may reach
// another replica than the one that started the flow (or this one after a
// restart); without that secret the key is random per process, and a
// cookie from another process fails and the reviewer starts again.

const (
	ssoCookie  = "mcpreg_sso"
	ssoFlowTTL = 10 * time.Minute
	// flowKeyInfo is the HKDF info label of the flow key: it keeps the key
	// independent of any other use of the shared secret.
	flowKeyInfo = "mcpreg web sso flow v1"
	// flowKeySize is the HMAC-SHA256 key size; a shared secret must be at
	// least minFlowSecret bytes.
	flowKeySize   = 32
	minFlowSecret = 16
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

// newFlowSealer derives the key from secret with HKDF-SHA256 (no salt, info
// flowKeyInfo), or makes a random one when secret is empty. An error names
// the secret's length, never its value.
func newFlowSealer(secret []byte) (flowSealer, error) {
	if len(secret) == 0 {
		key := make([]byte, flowKeySize)
		_, _ = rand.Read(key) // never fails (crypto/rand)
		return flowSealer{key: key}, nil
	}
	if len(secret) < minFlowSecret {
		return flowSealer{}, fmt.Errorf("flow secret is %d bytes, want at least %d", len(secret), minFlowSecret)
	}
	key, err := hkdf.Key(sha256.New, secret, nil, flowKeyInfo, flowKeySize)
	if err != nil {
		return flowSealer{}, fmt.Errorf("derive the flow key: %w", err)
	}
	return flowSealer{key: key}, nil
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
