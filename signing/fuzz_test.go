package signing_test

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/mcpreg/mcpreg/signing"
)

// fuzzKey is fixed so that the corpus holds envelopes that verify.
var fuzzKey = func() *signing.Key {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	return &signing.Key{ID: signing.KeyID(priv.Public().(ed25519.PublicKey)), Private: priv}
}()

func FuzzVerify(f *testing.F) {
	env, err := signing.Sign(fuzzKey, signing.PayloadType, doc)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(env)
	f.Add([]byte(`{"payloadType":"x","payload":"","signatures":[{"keyid":"k","sig":""}]}`))
	trusted := map[string]ed25519.PublicKey{fuzzKey.ID: fuzzKey.Public()}
	f.Fuzz(func(t *testing.T, data []byte) {
		payload, keyID, err := signing.Verify(data, signing.PayloadType, trusted)
		if err != nil {
			return
		}
		if keyID != fuzzKey.ID {
			t.Fatalf("verified under key %q", keyID)
		}
		again, err := signing.Sign(fuzzKey, signing.PayloadType, payload)
		if err != nil {
			t.Fatal(err)
		}
		if p, _, err := signing.Verify(again, signing.PayloadType, trusted); err != nil || !bytes.Equal(p, payload) {
			t.Fatalf("re-signed payload: %v", err)
		}
	})
}

func FuzzParseKeys(f *testing.F) {
	priv, _ := signing.MarshalPrivateKey(fuzzKey)
	pub, _ := signing.MarshalPublicKey(fuzzKey.Public())
	f.Add(priv)
	f.Add(pub)
	f.Fuzz(func(t *testing.T, data []byte) {
		if k, err := signing.ParsePrivateKey(data); err == nil && k.ID != signing.KeyID(k.Public()) {
			t.Fatalf("parsed key id %q", k.ID)
		}
		if p, err := signing.ParsePublicKey(data); err == nil && len(p) != ed25519.PublicKeySize {
			t.Fatalf("parsed public key of %d bytes", len(p))
		}
	})
}
