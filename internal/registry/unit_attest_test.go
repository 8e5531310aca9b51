package registry_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/attest/attesttest"
	"github.com/mcpreg/mcpreg/internal/registry"
)

// publishedIntegrity stands in for the npm registry's integrity values:
// every version publishes the sha512 of the same bytes.
type publishedIntegrity struct{}

func (publishedIntegrity) Integrity(context.Context, string, string) (attest.Digest, error) {
	return attest.DigestOf([]byte("published tarball"), attest.SHA512)
}

// TestUnitAttestationGate: where the server's attestation policy is
// required, a version is approved only with an attestation of its package
// that verifies under the policy: not without one, not with one from a
// signer the policy does not name. Bundles come from a virtual sigstore.
func TestUnitAttestationGate(t *testing.T) {
	const issuer, signer = "https://issuer.acme.example", "release@acme.example"
	ctx := context.Background()
	ss, err := attesttest.New()
	if err != nil {
		t.Fatal(err)
	}
	rootJSON, err := ss.TrustedRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	roots, err := attest.NewTrustedRoots(map[string][]byte{attest.PublicGood: attest.PublicGoodTrustedRoot(), "acme": rootJSON})
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := attest.NewVerifier(roots, attest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	env := newUnitEnv(t)
	svc := env.service(t, registry.Scanning{Reader: &fakeReader{}}, registry.WithAttestation(verifier), registry.WithNPMIntegrity(publishedIntegrity{}))
	tarball := []byte("weather-1.0.0.tgz")
	_, err = svc.Review.Submit(ctx, owner, registry.Submission{ServerJSON: npmServerJSON(weather, tarball), Tools: []byte(weatherTools)})
	if err != nil {
		t.Fatal(err)
	}
	// The key signs the declared sha256, which the registry cannot compare
	// with the npm registry's sha512: the owner's word, allowed here.
	pol := registry.Policy{Attestation: &attest.Policy{Required: true, TrustedRoot: "acme",
		Identities: []attest.Identity{{Issuer: issuer, SAN: signer}}, AllowUnfetchedDigests: true}}
	proposed, err := svc.Review.SetPolicy(ctx, reviewer, weather, pol, "signed releases only")
	if err != nil {
		t.Fatal(err)
	}
	bob := &registry.Caller{Principal: "bob", Role: registry.RoleReviewer}
	if _, err := svc.Review.ConfirmPolicy(ctx, bob, weather, proposed.GetPending().GetDigest(), "agreed"); err != nil {
		t.Fatal(err)
	}
	approve := func() error {
		_, err := svc.Review.Transition(ctx, reviewer, registry.ActionApprove, weather, weatherVersion, "reviewed")
		return err
	}
	refused := func(why string) {
		t.Helper()
		err := approve()
		if !errors.Is(err, registry.ErrFailedPrecondition) || !strings.Contains(err.Error(), "requires a verified attestation of every package") ||
			!strings.Contains(err.Error(), "package 0 (npm @acme/weather") || !strings.Contains(err.Error(), why) {
			t.Fatalf("approve: %v, want refused: %s", err, why)
		}
		if v := versionRow(t, env.st, weather); v.State != "pending_review" {
			t.Fatalf("refused approval left the version %s", v.State)
		}
	}
	attach := func(san string) {
		t.Helper()
		bundle, err := ss.Sign(san, issuer, tarball)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Attestations.AddAttestation(ctx, owner, weather, weatherVersion, registry.AttestationInput{Bundle: bundle}); err != nil {
			t.Fatal(err)
		}
	}

	refused("no attestation")
	attach("intruder@evil.example")
	refused("no verified attestation")
	attach(signer)
	if err := approve(); err != nil {
		t.Fatalf("approve with a verified attestation: %v", err)
	}
}
