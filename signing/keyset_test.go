package signing_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/signing"
)

func published(t *testing.T, k *signing.Key, notAfter *time.Time) signing.PublishedKey {
	t.Helper()
	p, err := signing.PublishedKeyFor(k, notAfter)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPublished(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	later, earlier := now.Add(24*time.Hour), now.Add(-time.Hour)
	cur, a, b, c := newKey(t), newKey(t), newKey(t), newKey(t)
	noExpiry := published(t, c, nil)
	noExpiry.Status = signing.StatusRetiring
	ks := &signing.KeySet{Current: cur, Previous: []signing.PublishedKey{
		published(t, a, &later), published(t, b, &earlier), noExpiry, published(t, a, &later),
	}}
	got := ks.Published(now)
	if len(got) != 2 || got[0].ID != cur.ID || got[1].ID != a.ID {
		t.Fatalf("Published = %+v, want the current key then %s", got, a.ID)
	}
	if got[0].Status != "current" || got[0].NotAfter != nil || got[1].Status != "retiring" || !got[1].NotAfter.Equal(later) {
		t.Fatalf("statuses: %+v", got)
	}
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var fields []map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	if len(fields[0]) != 4 || fields[0]["keyId"] != cur.ID || fields[0]["algorithm"] != "ed25519" ||
		!strings.HasPrefix(fields[0]["publicKey"].(string), "-----BEGIN PUBLIC KEY-----") || fields[1]["notAfter"] != "2026-06-02T00:00:00Z" {
		t.Fatalf("published JSON: %s", raw)
	}
	if trusted := ks.Trusted(now); len(trusted) != 2 || !trusted[a.ID].Equal(a.Public()) || !trusted[cur.ID].Equal(cur.Public()) {
		t.Fatalf("Trusted = %v", trusted)
	}
}

// TestTrustedSkipsMislabelledKeys: a listed key is trusted only under its
// own KeyID, whatever the list says.
func TestTrustedSkipsMislabelledKeys(t *testing.T) {
	now := time.Now()
	later := now.Add(time.Hour)
	a, b := newKey(t), newKey(t)
	wrong := published(t, a, &later)
	wrong.ID = b.ID
	garbage := signing.PublishedKey{ID: "ed25519:00", PublicKeyPEM: "garbage", NotAfter: &later}
	ks := &signing.KeySet{Previous: []signing.PublishedKey{wrong, garbage}}
	if trusted := ks.Trusted(now); len(trusted) != 0 {
		t.Fatalf("Trusted = %v, want nothing", trusted)
	}
	if got := (&signing.KeySet{Current: &signing.Key{ID: b.ID, Private: a.Private}}).Published(now); len(got) != 0 {
		t.Fatalf("current key under another id published: %+v", got)
	}
}

func TestKeySetValidate(t *testing.T) {
	later := time.Now().Add(time.Hour)
	cur, a := newKey(t), newKey(t)
	wrongID := published(t, a, &later)
	wrongID.ID = cur.ID
	noExpiry := published(t, a, nil)
	rsa := published(t, a, &later)
	rsa.Algorithm = "rsa"
	tests := []struct {
		name string
		ks   signing.KeySet
		want string
	}{
		{"valid", signing.KeySet{Current: cur, Previous: []signing.PublishedKey{published(t, a, &later)}}, ""},
		{"no current key", signing.KeySet{}, "current: invalid key: no key"},
		{"current id mismatch", signing.KeySet{Current: &signing.Key{ID: a.ID, Private: cur.Private}}, "current: invalid key: key id"},
		{"previous id mismatch", signing.KeySet{Current: cur, Previous: []signing.PublishedKey{wrongID}}, "previous[0]: invalid key: keyId"},
		{"previous without notAfter", signing.KeySet{Current: cur, Previous: []signing.PublishedKey{noExpiry}}, "previous[0]: invalid key: notAfter is missing"},
		{"previous other algorithm", signing.KeySet{Current: cur, Previous: []signing.PublishedKey{rsa}}, `previous[0]: invalid key: algorithm "rsa"`},
		{"previous is current", signing.KeySet{Current: cur, Previous: []signing.PublishedKey{published(t, cur, &later)}}, "listed twice"},
		{"previous garbage", signing.KeySet{Current: cur, Previous: []signing.PublishedKey{{PublicKeyPEM: "x"}}}, "previous[0]: publicKey: invalid key: not PEM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.ks.Validate()
			if tt.want == "" && err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && (!errors.Is(err, signing.ErrInvalidKey) || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
