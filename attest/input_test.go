package attest_test

import (
	"bytes"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
)

func TestBadInput(t *testing.T) {
	e := newEnv(t)
	signed := e.sign(t, artifact)
	withMediaType := func(mt string) []byte {
		return bytes.Replace(signed, []byte(`"application/vnd.dev.sigstore.bundle.v0.3+json"`), []byte(`"`+mt+`"`), 1)
	}
	oversized := append(bytes.Repeat([]byte(" "), attest.DefaultMaxBundleBytes), signed...)
	md5 := attest.Digest{Algorithm: "md5", Hex: "d41d8cd98f00b204e9800998ecf8427e"}
	tests := []struct {
		name     string
		bundle   []byte
		artifact attest.Artifact
		policy   func(p *attest.Policy)
		sentinel error
		want     []string
	}{
		{"oversized bundle", oversized, attest.ArtifactBytes(artifact), nil, attest.ErrTooLarge, []string{"limit 1048576"}},
		{"malformed JSON", signed[:len(signed)/2], attest.ArtifactBytes(artifact), nil, attest.ErrInvalidBundle, []string{"unexpected EOF"}},
		{"not a bundle", []byte(`{"hello":"world"}`), attest.ArtifactBytes(artifact), nil, attest.ErrInvalidBundle, []string{"hello"}},
		{"unknown media type", withMediaType("application/vnd.example+json"), attest.ArtifactBytes(artifact), nil,
			attest.ErrInvalidBundle, []string{"unsupported media type", "application/vnd.example+json"}},
		{"unsupported version", withMediaType("application/vnd.dev.sigstore.bundle.v0.4+json"), attest.ArtifactBytes(artifact), nil,
			attest.ErrInvalidBundle, []string{"unsupported media type or version", "v0.4"}},
		{"unanchored regexp", signed, attest.ArtifactBytes(artifact), func(p *attest.Policy) {
			p.Identities[0] = attest.Identity{Issuer: testIssuer, SANRegexp: `release@acme\.example`}
		}, attest.ErrPolicy, []string{"identities[0].sanRegexp", "must be anchored"}},
		{"unknown root", signed, attest.ArtifactBytes(artifact), func(p *attest.Policy) { p.TrustedRoot = "staging" },
			attest.ErrUnknownRoot, []string{`"staging"`, "acme-private", "public-good"}},
		{"required, no identity", signed, attest.ArtifactBytes(artifact), func(p *attest.Policy) { p.Identities = nil },
			attest.ErrPolicy, []string{"identities", "at least one identity or public key"}},
		{"optional, no signer", signed, attest.ArtifactBytes(artifact), func(p *attest.Policy) { p.Identities, p.Required = nil, false },
			attest.ErrPolicy, []string{"accepts no signer"}},
		{"md5 digest", signed, attest.ArtifactDigest(md5), nil, attest.ErrInvalidArtifact, []string{`"md5" is not supported`}},
		{"no artifact", signed, attest.Artifact{}, nil, attest.ErrInvalidArtifact, []string{"no artifact"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := privatePolicy()
			if tt.policy != nil {
				tt.policy(&p)
			}
			_, err := e.verifier.Verify(tt.bundle, tt.artifact, p)
			wantErr(t, err, tt.sentinel, tt.want...)
		})
	}
}

func TestBundleVersions(t *testing.T) {
	e := newEnv(t)
	signed := e.sign(t, artifact)
	for _, mt := range []string{
		"application/vnd.dev.sigstore.bundle+json;version=0.1",
		"application/vnd.dev.sigstore.bundle+json;version=0.2",
		"application/vnd.dev.sigstore.bundle+json;version=0.3",
	} {
		b := bytes.Replace(signed, []byte(`"application/vnd.dev.sigstore.bundle.v0.3+json"`), []byte(`"`+mt+`"`), 1)
		r, err := e.verifier.Verify(b, attest.ArtifactBytes(artifact), privatePolicy())
		if err != nil || r.BundleMediaType != mt {
			t.Errorf("%s: %v (receipt media type %q)", mt, err, mediaType(r))
		}
	}
}

func mediaType(r *attest.Receipt) string {
	if r == nil {
		return ""
	}
	return r.BundleMediaType
}

func TestSizeLimitConfigurable(t *testing.T) {
	e := newEnv(t)
	signed := e.sign(t, artifact)
	roots, err := attest.NewTrustedRoots(map[string][]byte{attest.PublicGood: attest.PublicGoodTrustedRoot()})
	if err != nil {
		t.Fatal(err)
	}
	v, err := attest.NewVerifier(roots, attest.Config{MaxBundleBytes: len(signed) - 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(signed, attest.ArtifactBytes(artifact), privatePolicy())
	wantErr(t, err, attest.ErrTooLarge, "limit")
}
