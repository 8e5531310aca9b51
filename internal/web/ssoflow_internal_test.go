package web

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// TestFlowKeyDerivation: a shared secret gives every process the same flow
// key, HKDF-SHA256 with no salt and info "mcpreg web sso flow v1" (the
// golden value was computed independently, with Python's hmac module), so
// the key is not the secret and changes only with a new label; other
// secrets give other keys; no secret gives a random key per process; a
// short secret is refused without its value in the error.
func TestFlowKeyDerivation(t *testing.T) {
	secret := make([]byte, 32)
	for i := range secret {
		secret[i] = byte(i)
	}
	const golden = "e4606b9730ceaa14cb0e4f6f265aaa76aa14c3fc0919f54a6811550355e27c50"
	s1, s2 := mustSealer(t, secret), mustSealer(t, bytes.Clone(secret))
	if got := hex.EncodeToString(s1.key); got != golden {
		t.Errorf("flow key %s, want %s", got, golden)
	}
	if !bytes.Equal(s1.key, s2.key) || bytes.Equal(s1.key, secret) {
		t.Errorf("the same secret gave different keys, or the key is the secret")
	}
	other := bytes.Clone(secret)
	other[0] ^= 1
	if bytes.Equal(mustSealer(t, other).key, s1.key) {
		t.Errorf("another secret gave the same key")
	}
	r1, r2 := mustSealer(t, nil), mustSealer(t, nil)
	if len(r1.key) != flowKeySize || bytes.Equal(r1.key, r2.key) {
		t.Errorf("without a secret: keys %x and %x, want two random %d-byte keys", r1.key, r2.key, flowKeySize)
	}

	short := []byte("0123456789abcde") // 15 bytes
	if _, err := newFlowSealer(short); err == nil || !strings.Contains(err.Error(), "15 bytes") ||
		strings.Contains(err.Error(), string(short)) {
		t.Errorf("short secret: %v, want an error naming its length only", err)
	}
}

// TestFlowCookieOpensUnderTheSameSecret: a sealed flow opens in another
// process with the same secret, and nowhere else.
func TestFlowCookieOpensUnderTheSameSecret(t *testing.T) {
	secret := bytes.Repeat([]byte{7}, 32)
	now := time.Now()
	f := ssoFlow{State: "s", Nonce: "n", Verifier: "v", Next: "/queue", Expires: now.Add(time.Minute).Unix()}
	sealed := mustSealer(t, secret).seal(f)
	if got, ok := mustSealer(t, secret).open(sealed, now); !ok || got != f {
		t.Errorf("same secret: open = %+v, %v; want the flow", got, ok)
	}
	for name, s := range map[string]flowSealer{"other secret": mustSealer(t, bytes.Repeat([]byte{8}, 32)),
		"no secret": mustSealer(t, nil)} {
		if _, ok := s.open(sealed, now); ok {
			t.Errorf("%s: opened a flow sealed under another key", name)
		}
	}
}

func mustSealer(t *testing.T, secret []byte) flowSealer {
	t.Helper()
	s, err := newFlowSealer(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
