package attest_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/attest/attesttest"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// Real npm bundles shipped with sigstore-go (see ../testdata/attest/README.md),
// verified against the embedded public-good root by their npm integrity.
var fixtures = testkit.TestdataDir("attest") + "/"

const (
	sigstore130      = "sha512-dhdv+jOAi1RgLHw13lxumk3rlgZtumUz9QrCNPTx9MazUnUV3BfAb74oYAMPQQ7uaeogB5vTosbz3POzKbEHUQ=="
	sigstore200      = "sha512-RtTi90xIdzFmQAAKb9+Ki1nx4IR2Z5c+mFn3dN0xuPHgk3gTt3f7ZqKsZ9UFQP40ZAlm7un8LMyjhwgrTIXNPA=="
	sigstoreJSRepo   = "https://github.com/sigstore/sigstore-js"
	sigstoreJSSigner = sigstoreJSRepo + "/.github/workflows/release.yml@refs/heads/main"
	githubIssuer     = "https://token.actions.githubusercontent.com"
)

func publicGoodVerifier(t testing.TB) *attest.Verifier {
	t.Helper()
	roots, err := attest.NewTrustedRoots(map[string][]byte{attest.PublicGood: attest.PublicGoodTrustedRoot()})
	if err != nil {
		t.Fatal(err)
	}
	v, err := attest.NewVerifier(roots, attest.Config{Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func npmDigest(t testing.TB, integrity string) attest.Artifact {
	t.Helper()
	d, err := attest.ParseDigest(integrity)
	if err != nil {
		t.Fatal(err)
	}
	return attest.ArtifactDigest(d)
}

func sigstoreJSPolicy() attest.Policy {
	return attest.Policy{
		Required:            true,
		Identities:          []attest.Identity{{Issuer: githubIssuer, SAN: sigstoreJSSigner}},
		SourceRepository:    sigstoreJSRepo,
		SourceRepositoryRef: "refs/heads/main",
		PredicateTypes:      []string{"https://slsa.dev/provenance/v0.2", "https://slsa.dev/provenance/v1"},
	}
}

func TestNPMProvenance(t *testing.T) {
	v := publicGoodVerifier(t)
	r, err := v.Verify(readFile(t, fixtures+"sigstore-1.3.0.provenance.sigstore.json"), npmDigest(t, sigstore130), sigstoreJSPolicy())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, fixtures+"sigstore-1.3.0.provenance.receipt.json", r)
	if _, err := v.Verify(readFile(t, fixtures+"sigstore-2.0.0.provenance.sigstore.json"), npmDigest(t, sigstore200), sigstoreJSPolicy()); err != nil {
		t.Errorf("sigstore@2.0.0 provenance (SLSA v1): %v", err)
	}
}

func TestNPMPublishAttestation(t *testing.T) {
	v := publicGoodVerifier(t)
	key := string(readFile(t, fixtures+"npm-publish-key.pub"))
	r, err := v.Verify(readFile(t, fixtures+"sigstore-1.3.0.publish.sigstore.json"), npmDigest(t, sigstore130),
		attest.Policy{Required: true, PublicKeys: []string{key}})
	if err != nil {
		t.Fatal(err)
	}
	if r.KeyFingerprint != fingerprint(t, key) || r.Identity != nil || len(r.TlogEntries) != 1 || r.TlogEntries[0].LogIndex != 18300940 {
		t.Errorf("receipt key %q, identity %+v, tlog %+v", r.KeyFingerprint, r.Identity, r.TlogEntries)
	}
}

func TestNPMRejections(t *testing.T) {
	v := publicGoodVerifier(t)
	provenance := readFile(t, fixtures+"sigstore-1.3.0.provenance.sigstore.json")
	tests := []struct {
		name   string
		digest string
		policy func(p *attest.Policy)
		want   string
	}{
		{"other version's digest", sigstore200, nil, "does not match any subject"},
		{"sha256 of an npm tarball", "sha256:" + attesttest.SHA256([]byte("tarball")), nil, "no subject of the in-toto statement has a sha256 digest"},
		{"other repository", sigstore130, func(p *attest.Policy) { p.SourceRepository = "https://github.com/acme/sigstore-js" },
			`certificate source repository "https://github.com/sigstore/sigstore-js" does not match policy`},
		{"other ref", sigstore130, func(p *attest.Policy) { p.SourceRepositoryRef = "refs/tags/v1.3.0" },
			`certificate source repository ref "refs/heads/main" does not match policy`},
		{"SLSA v1 only", sigstore130, func(p *attest.Policy) { p.PredicateTypes = []string{"https://slsa.dev/provenance/v1"} },
			`predicate type "https://slsa.dev/provenance/v0.2" not allowed`},
		{"fork's workflow", sigstore130, func(p *attest.Policy) {
			p.Identities[0] = attest.Identity{Issuer: githubIssuer, SANRegexp: `^https://github\.com/acme/.*$`}
		}, `certificate SAN "` + sigstoreJSSigner + `" does not match policy`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := sigstoreJSPolicy()
			if tt.policy != nil {
				tt.policy(&p)
			}
			_, err := v.Verify(provenance, npmDigest(t, tt.digest), p)
			wantErr(t, err, attest.ErrVerification, tt.want)
		})
	}
}

// golden compares r's JSON with a file; -update rewrites it.
func golden(t *testing.T, path string, r *attest.Receipt) {
	t.Helper()
	got, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	testkit.Golden(t, path, got)
}
