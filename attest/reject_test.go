package attest_test

import (
	"testing"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/attest/attesttest"
)

func TestVirtualRejections(t *testing.T) {
	e := newEnv(t)
	signed := e.sign(t, artifact)
	other := newEnv(t) // another deployment: its bundles must not verify here
	fromOther := other.sign(t, artifact)
	provenance := func(digest string) []byte {
		return e.attest(t, attesttest.Statement(attesttest.SLSAProvenanceV1, "weather.tgz", map[string]string{"sha256": digest}))
	}
	tampered := append([]byte{}, artifact...)
	tampered[0] ^= 1
	tests := []struct {
		name     string
		bundle   []byte
		artifact attest.Artifact
		policy   func(p *attest.Policy)
		sentinel error
		want     []string
	}{
		{"tampered artifact", signed, attest.ArtifactBytes(tampered), nil, attest.ErrVerification,
			[]string{"artifact digest does not match", "sha256:" + attesttest.SHA256(tampered)}},
		{"tampered digest", signed, attest.ArtifactDigest(attest.ArtifactBytes(tampered).Digest()), nil,
			attest.ErrVerification, []string{"artifact digest does not match"}},
		{"digest in another algorithm", signed, sha512Of(artifact), nil, attest.ErrVerification,
			[]string{"signs a sha256 digest", "given as sha512"}},
		{"wrong SAN", signed, attest.ArtifactBytes(artifact), func(p *attest.Policy) { p.Identities[0].SAN = "ci@acme.example" },
			attest.ErrVerification, []string{`certificate SAN "release@acme.example" does not match policy`, `"ci@acme.example"`}},
		{"wrong SAN regexp", signed, attest.ArtifactBytes(artifact), func(p *attest.Policy) {
			p.Identities[0] = attest.Identity{Issuer: testIssuer, SANRegexp: `^ci@acme\.example$`}
		}, attest.ErrVerification, []string{`certificate SAN "release@acme.example" does not match policy (want match for ^ci@acme\.example$)`}},
		{"wrong issuer", signed, attest.ArtifactBytes(artifact), func(p *attest.Policy) { p.Identities[0].Issuer = "https://accounts.google.com" },
			attest.ErrVerification, []string{`certificate issuer "https://issuer.acme.example" does not match policy`}},
		{"no identity matches", signed, attest.ArtifactBytes(artifact), func(p *attest.Policy) {
			p.Identities = []attest.Identity{{Issuer: testIssuer, SAN: "a@acme.example"}, {Issuer: "https://other", SAN: testSAN}}
		}, attest.ErrVerification, []string{"matches none of the policy's identities", `SAN "release@acme.example"`, `issuer "https://issuer.acme.example"`}},
		{"source repository", signed, attest.ArtifactBytes(artifact), func(p *attest.Policy) { p.SourceRepository = "https://github.com/acme/weather" },
			attest.ErrVerification, []string{`certificate source repository "" does not match policy (want "https://github.com/acme/weather")`}},
		{"key-only policy", signed, attest.ArtifactBytes(artifact), func(p *attest.Policy) {
			p.Identities, p.PublicKeys = nil, []string{newKeyPEM(t)}
		}, attest.ErrVerification, []string{"signed with a certificate", "accepts no certificate identity"}},
		{"another sigstore instance", fromOther, attest.ArtifactBytes(artifact), nil, attest.ErrVerification,
			[]string{`trusted root "acme-private"`, "another sigstore instance"}},
		{"other instance, right root", fromOther, attest.ArtifactBytes(artifact), func(p *attest.Policy) { p.TrustedRoot = attest.PublicGood },
			attest.ErrVerification, []string{`trusted root "public-good"`}},
		{"DSSE subject digest wrong", provenance(attesttest.SHA256(tampered)), attest.ArtifactBytes(artifact), nil, attest.ErrVerification,
			[]string{"artifact digest sha256:" + attesttest.SHA256(artifact) + " does not match any subject", "weather.tgz sha256:" + attesttest.SHA256(tampered)}},
		{"DSSE predicate not allowed", provenance(attesttest.SHA256(artifact)), attest.ArtifactBytes(artifact), func(p *attest.Policy) {
			p.PredicateTypes = []string{"https://slsa.dev/provenance/v0.2", "https://spdx.dev/Document"}
		}, attest.ErrVerification, []string{`predicate type "https://slsa.dev/provenance/v1" not allowed`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := privatePolicy()
			if tt.policy != nil {
				tt.policy(&p)
			}
			r, err := e.verifier.Verify(tt.bundle, tt.artifact, p)
			if r != nil {
				t.Errorf("got a receipt: %+v", r)
			}
			wantErr(t, err, tt.sentinel, tt.want...)
		})
	}
}

func TestVirtualIdentityVariants(t *testing.T) {
	e := newEnv(t)
	signed := e.sign(t, artifact)
	for name, ids := range map[string][]attest.Identity{
		"regexps":           {{IssuerRegexp: `^https://issuer\.acme\.example$`, SANRegexp: `^[a-z]+@acme\.example$`}},
		"second of several": {{Issuer: testIssuer, SAN: "ci@acme.example"}, {Issuer: testIssuer, SAN: testSAN}},
	} {
		t.Run(name, func(t *testing.T) {
			p := privatePolicy()
			p.Identities = ids
			if _, err := e.verifier.Verify(signed, attest.ArtifactBytes(artifact), p); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func sha512Of(data []byte) attest.Artifact {
	d, err := attest.ParseDigest("sha512:" + sha512Hex(data))
	if err != nil {
		panic(err)
	}
	return attest.ArtifactDigest(d)
}
