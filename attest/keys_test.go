package attest_test

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/pem"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/attest/attesttest"
)

func sha512Hex(data []byte) string {
	sum := sha512.Sum512(data)
	return hex.EncodeToString(sum[:])
}

func newKeySigner(t testing.TB) (*attesttest.KeySigner, string) {
	t.Helper()
	k, err := attesttest.NewKeySigner()
	if err != nil {
		t.Fatal(err)
	}
	pemText, err := k.PublicKeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	return k, pemText
}

func newKeyPEM(t testing.TB) string {
	_, p := newKeySigner(t)
	return p
}

// keyEnv is a trust domain of a TSA only: key-signed bundles timestamped
// by it verify with the policy's key.
func keyEnv(t *testing.T) (*attesttest.Sigstore, *attest.Verifier) {
	t.Helper()
	ss, err := attesttest.New()
	if err != nil {
		t.Fatal(err)
	}
	tsaRoot, err := ss.TimestampRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	return ss, loadVerifier(t, map[string][]byte{"acme-keys": tsaRoot, attest.PublicGood: attest.PublicGoodTrustedRoot()})
}

func keyPolicy(keys ...string) attest.Policy {
	return attest.Policy{Required: true, TrustedRoot: "acme-keys", PublicKeys: keys}
}

func TestKeySigned(t *testing.T) {
	tsa, v := keyEnv(t)
	k, pub := newKeySigner(t)
	_, otherPub := newKeySigner(t)
	blob, err := k.Sign(artifact, tsa)
	if err != nil {
		t.Fatal(err)
	}
	dsse, err := k.Attest(attesttest.Statement(attesttest.SLSAProvenanceV1, "w", map[string]string{"sha256": attesttest.SHA256(artifact)}), tsa)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"blob": blob, "dsse": dsse} {
		t.Run(name, func(t *testing.T) {
			r, err := v.Verify(b, attest.ArtifactBytes(artifact), keyPolicy(otherPub, pub))
			if err != nil {
				t.Fatal(err)
			}
			fp := fingerprint(t, pub)
			if r.KeyFingerprint != fp || r.Identity != nil || !hasSource(r.Timestamps, "tsa") {
				t.Errorf("receipt key %q (want %s), identity %+v, timestamps %+v", r.KeyFingerprint, fp, r.Identity, r.Timestamps)
			}
		})
	}
}

func TestKeySignedRejections(t *testing.T) {
	tsa, v := keyEnv(t)
	k, pub := newKeySigner(t)
	blob, _ := k.Sign(artifact, tsa)
	untimed, _ := k.Sign(artifact, nil)
	tests := []struct {
		name   string
		bundle []byte
		policy attest.Policy
		want   []string
	}{
		{"wrong key", blob, keyPolicy(newKeyPEM(t)), []string{"key sha256:", "failed to verify signature"}},
		{"no key matches", blob, keyPolicy(newKeyPEM(t), newKeyPEM(t)), []string{"no policy key verifies the bundle"}},
		{"no timestamp", untimed, keyPolicy(pub), []string{"no time source"}},
		{"identity-only policy", blob, attest.Policy{TrustedRoot: "acme-keys", Identities: privatePolicy().Identities}, []string{"signed with a public key", "accepts no public key"}},
		{"root with a log, bundle without entry", blob, attest.Policy{PublicKeys: []string{pub}}, []string{`trusted root "public-good"`, "log"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Verify(tt.bundle, attest.ArtifactBytes(artifact), tt.policy)
			wantErr(t, err, attest.ErrVerification, tt.want...)
		})
	}
}

// fingerprint computes the sha256 of the key's DER independently, and
// checks PublicKeyFingerprint agrees.
func fingerprint(t *testing.T, pemText string) string {
	t.Helper()
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		t.Fatalf("no PEM in %q", pemText)
	}
	sum := sha256.Sum256(block.Bytes)
	want := "sha256:" + hex.EncodeToString(sum[:])
	if got, err := attest.PublicKeyFingerprint(pemText); got != want || err != nil {
		t.Errorf("PublicKeyFingerprint = %q, %v; want %s", got, err, want)
	}
	return want
}
