package attest_test

import (
	"encoding/hex"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/mcpreg/mcpreg/attest"
)

// BenchmarkVerify compares attest's Verify with calling sigstore-go
// directly on the same bundle: parse the JSON, build a verifier with the
// same options, verify the digest and identity. Trusted roots are parsed
// once in both.
func BenchmarkVerify(b *testing.B) {
	bundleJSON := readFile(b, fixtures+"sigstore-1.3.0.provenance.sigstore.json")
	npm := npmDigest(b, sigstore130)
	p := sigstoreJSPolicy()
	v := publicGoodVerifier(b)
	b.Run("attest", func(b *testing.B) {
		for b.Loop() {
			if _, err := v.Verify(bundleJSON, npm, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	tr, err := root.NewTrustedRootFromJSON(attest.PublicGoodTrustedRoot())
	if err != nil {
		b.Fatal(err)
	}
	digest := npm.Digest()
	b.Run("sigstore-go", func(b *testing.B) {
		for b.Loop() {
			rawVerify(b, tr, bundleJSON, digest)
		}
	})
}

func rawVerify(b *testing.B, tr *root.TrustedRoot, bundleJSON []byte, d attest.Digest) {
	var bu bundle.Bundle
	if err := bu.UnmarshalJSON(bundleJSON); err != nil {
		b.Fatal(err)
	}
	sv, err := verify.NewVerifier(tr, verify.WithoutStatementPredicate(), verify.WithSignedCertificateTimestamps(1),
		verify.WithTransparencyLog(1), verify.WithIntegratedTimestamps(1))
	if err != nil {
		b.Fatal(err)
	}
	san, _ := verify.NewSANMatcher(sigstoreJSSigner, "")
	issuer, _ := verify.NewIssuerMatcher(githubIssuer, "")
	id, err := verify.NewCertificateIdentity(san, issuer,
		certificate.Extensions{SourceRepositoryURI: sigstoreJSRepo, SourceRepositoryRef: "refs/heads/main"})
	if err != nil {
		b.Fatal(err)
	}
	digest, _ := hex.DecodeString(d.Hex)
	if _, err := sv.Verify(&bu, verify.NewPolicy(verify.WithArtifactDigest(d.Algorithm, digest), verify.WithCertificateIdentity(id))); err != nil {
		b.Fatal(err)
	}
}
