package attest_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
)

var sentinels = []error{attest.ErrTooLarge, attest.ErrPolicy, attest.ErrUnknownRoot,
	attest.ErrInvalidArtifact, attest.ErrInvalidBundle, attest.ErrVerification}

// FuzzVerify feeds arbitrary bundle JSON through parsing and verification:
// no panic, and every failure wraps one of the package's sentinels.
func FuzzVerify(f *testing.F) {
	e := newEnv(f)
	f.Add(e.sign(f, artifact))
	f.Add(e.attest(f, []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[],"predicateType":"x"}`)))
	for _, name := range []string{"sigstore-1.3.0.provenance.sigstore.json", "sigstore-1.3.0.publish.sigstore.json"} {
		f.Add(readFile(f, fixtures+name))
	}
	for _, c := range []string{"happy-path-v0.3", "rekor2-happy-path", "managed-key-happy-path", "happy-path-intoto-in-dsse-v3"} {
		f.Add(readFile(f, filepath.Join(conformanceDir, "bundle-verify", c, "bundle.sigstore.json")))
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`))
	p := attest.Policy{Identities: []attest.Identity{{IssuerRegexp: "^.*$", SANRegexp: "^.*$"}}, PublicKeys: []string{newKeyPEM(f)}}
	f.Fuzz(func(t *testing.T, bundle []byte) {
		r, err := e.verifier.Verify(bundle, attest.ArtifactBytes(artifact), p)
		if err == nil {
			if r == nil {
				t.Fatal("no error and no receipt")
			}
			return
		}
		for _, s := range sentinels {
			if errors.Is(err, s) {
				return
			}
		}
		t.Fatalf("error wraps no sentinel: %v", err)
	})
}
