package server_test

import (
	"context"
	"encoding/hex"
	"os"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/testkit"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// The npm provenance of sigstore@1.3.0 (public-good, SLSA v0.2), shipped
// with attest's tests.
var npmBundle = testkit.TestdataDir("attest", "sigstore-1.3.0.provenance.sigstore.json")

const (
	npmIntegrity13 = "sha512-dhdv+jOAi1RgLHw13lxumk3rlgZtumUz9QrCNPTx9MazUnUV3BfAb74oYAMPQQ7uaeogB5vTosbz3POzKbEHUQ=="
	sigstoreJSRepo = "https://github.com/sigstore/sigstore-js"
	sigstoreJSSAN  = sigstoreJSRepo + "/.github/workflows/release.yml@refs/heads/main"
	githubIssuer   = "https://token.actions.githubusercontent.com"
)

func npmPolicy() *mcpregv1.AttestationPolicy {
	return &mcpregv1.AttestationPolicy{Required: true,
		Identities:       []*mcpregv1.AttestationIdentity{{Issuer: githubIssuer, San: sigstoreJSSAN}},
		SourceRepository: sigstoreJSRepo, SourceRepositoryRef: "refs/heads/main"}
}

// TestVerifyRealNPMProvenance: a real public-good bundle verifies through
// the service's VerifyAttestation with the built-in root.
func TestVerifyRealNPMProvenance(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect)
		rc := grpcClient(t, in)
		ctx := withToken(context.Background(), in.Token(t, "ci", registry.RoleHost))
		raw, err := os.ReadFile(npmBundle)
		if err != nil {
			t.Fatal(err)
		}
		res, err := rc.VerifyAttestation(ctx, &mcpregv1.VerifyAttestationRequest{Bundle: string(raw), ArtifactDigest: npmIntegrity13, Policy: npmPolicy()})
		if err != nil {
			t.Fatal(err)
		}
		a := res.GetAttestation()
		if !a.GetVerified() || a.GetSan() != sigstoreJSSAN || a.GetSourceRepository() != sigstoreJSRepo || a.GetLogIndex() == 0 {
			t.Fatalf("real npm provenance: %v", a)
		}
	})
}

func grpcClient(t testing.TB, in *servertest.Instance) mcpregv1.RegistryServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(in.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return mcpregv1.NewRegistryServiceClient(conn)
}

// BenchmarkVerifyAttestation compares verifications per second of the
// same real bundle through the service's VerifyAttestation (gRPC and REST,
// with authentication, interceptors and the gateway), attest.Verify, and
// sigstore-go called directly. It runs on the first dialect (SQLite) only:
// verification stores nothing and reads no table, and the caller's token
// comes from the authentication cache (one read per identity.AuthCacheTTL),
// so the database hardly shows in what it measures.
func BenchmarkVerifyAttestation(b *testing.B) {
	raw, err := os.ReadFile(npmBundle)
	if err != nil {
		b.Fatal(err)
	}
	in := servertest.Start(b, storetest.Dialects(b)[0])
	token := in.Token(b, "bench", registry.RoleHost)
	rc := grpcClient(b, in)
	ctx := withToken(context.Background(), token)
	req := &mcpregv1.VerifyAttestationRequest{Bundle: string(raw), ArtifactDigest: npmIntegrity13, Policy: npmPolicy()}
	b.Run("service-grpc", func(b *testing.B) {
		for b.Loop() {
			if res, err := rc.VerifyAttestation(ctx, req); err != nil || !res.GetAttestation().GetVerified() {
				b.Fatal(err, res)
			}
		}
		perSecond(b)
	})
	b.Run("service-rest", func(b *testing.B) {
		body := map[string]any{"bundle": string(raw), "artifactDigest": npmIntegrity13, "policy": map[string]any{"required": true,
			"identities": []any{map[string]any{"issuer": githubIssuer, "san": sigstoreJSSAN}}, "sourceRepository": sigstoreJSRepo,
			"sourceRepositoryRef": "refs/heads/main"}}
		for b.Loop() {
			if r := call(b, "POST", in.URL+"/v1/attestations:verify", token, body); r.Status != 200 {
				b.Fatalf("%d %s", r.Status, r.Body)
			}
		}
		perSecond(b)
	})
	v := publicGood(b)
	d, _ := attest.ParseDigest(npmIntegrity13)
	p := *registry.AttestPolicyFromProto(npmPolicy())
	b.Run("attest.Verify", func(b *testing.B) {
		for b.Loop() {
			if _, err := v.Verify(raw, attest.ArtifactDigest(d), p); err != nil {
				b.Fatal(err)
			}
		}
		perSecond(b)
	})
	tr, err := root.NewTrustedRootFromJSON(attest.PublicGoodTrustedRoot())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sigstore-go", func(b *testing.B) {
		for b.Loop() {
			rawVerify(b, tr, raw, d)
		}
		perSecond(b)
	})
}

func perSecond(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verifications/s")
}

func publicGood(b *testing.B) *attest.Verifier {
	roots, err := attest.NewTrustedRoots(map[string][]byte{attest.PublicGood: attest.PublicGoodTrustedRoot()})
	if err != nil {
		b.Fatal(err)
	}
	v, err := attest.NewVerifier(roots, attest.Config{})
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// rawVerify is sigstore-go alone: parse, build a verifier with the same
// options, verify digest and identity.
func rawVerify(b *testing.B, tr *root.TrustedRoot, bundleJSON []byte, d attest.Digest) {
	var bu bundle.Bundle
	if err := bu.UnmarshalJSON(bundleJSON); err != nil {
		b.Fatal(err)
	}
	sv, err := verify.NewVerifier(tr, verify.WithSignedCertificateTimestamps(1), verify.WithTransparencyLog(1), verify.WithIntegratedTimestamps(1))
	if err != nil {
		b.Fatal(err)
	}
	san, _ := verify.NewSANMatcher(sigstoreJSSAN, "")
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
