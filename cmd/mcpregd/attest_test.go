package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/attest/attesttest"
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/wiring"
)

const (
	signer = "release@acme.example"
	issuer = "https://issuer.acme.example"
)

// TestAttestReverify: `mcpregd attest reverify` with the trusted roots
// flag quarantines an approved version once the policy names another
// identity, and says so.
func TestAttestReverify(t *testing.T) {
	storetest.EachDialect(t, attestReverify)
}

func attestReverify(t *testing.T, dialect string) {
	ss, err := attesttest.New()
	if err != nil {
		t.Fatal(err)
	}
	rootJSON, _ := ss.TrustedRootJSON()
	rootPath := filepath.Join(t.TempDir(), "acme.json")
	if err := os.WriteFile(rootPath, rootJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	dsn := storetest.EmptyDSN(t, dialect)
	approvedUnder(t, dsn, "acme="+rootPath, ss)
	env := map[string]string{"MCPREG_DB": dsn}
	// Without the acme root loaded, nothing is re-verified (or quarantined).
	if _, err := run(t, env, "attest", "reverify"); err == nil || !strings.Contains(err.Error(), `names trusted root "acme"`) {
		t.Fatalf("reverify without the root: %v", err)
	}
	if _, err := run(t, env, "attest", "reverify", "--trusted-root", "acme"); err == nil || !strings.Contains(err.Error(), "NAME=PATH") {
		t.Fatalf("bad --trusted-root: %v", err)
	}
	out, err := run(t, map[string]string{"MCPREG_TRUSTED_ROOT": "acme=" + rootPath}, "--db", dsn, "attest", "reverify")
	if err != nil || !strings.Contains(out, "quarantined 1 version(s): io.github.acme/signed@1.0.0") {
		t.Fatalf("reverify: %v\n%s", err, out)
	}
}

// approvedUnder stores an approved, attested version, then moves the
// server's required policy to another identity.
func approvedUnder(t *testing.T, dsn, root string, ss *attesttest.Sigstore) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	if err := st.MigrateUp(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := wiring.VerifierFrom(config.Config{TrustedRoots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.New(ctx, st, registry.WithAttestation(v), registry.WithNPMIntegrity(publishedNPM{}))
	if err != nil {
		t.Fatal(err)
	}
	owner := &registry.Caller{Principal: "olga", Role: registry.RoleOwner, Namespaces: []string{"io.github.acme"}}
	rita := &registry.Caller{Principal: "rita", Role: registry.RoleReviewer}
	artifact := []byte("signed-mcp-1.0.0.tgz")
	sum := sha256.Sum256(artifact)
	sj := fmt.Sprintf(`{"$schema": %q, "name": "io.github.acme/signed", "description": "d", "version": "%%s",
  "packages": [{"registryType": "npm", "identifier": "@acme/signed", "version": "1.0.0", "fileSha256": %q, "transport": {"type": "stdio"}}]}`,
		"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json", hex.EncodeToString(sum[:]))
	tools := `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`
	if _, err := svc.Review.Submit(ctx, owner, registry.Submission{ServerJSON: []byte(fmt.Sprintf(sj, "0.1.0")), Tools: []byte(tools)}); err != nil {
		t.Fatal(err)
	}
	pol := func(san string) registry.Policy {
		// The key signed the sha256 fileSha256, which the registry cannot
		// compare with the npm registry's sha512: the owner's word.
		return registry.Policy{Attestation: &attest.Policy{Required: true, TrustedRoot: "acme", Identities: []attest.Identity{{Issuer: issuer, SAN: san}},
			AllowUnfetchedDigests: true}}
	}
	setPolicy(t, svc, rita, pol(signer))
	bundle, err := ss.Sign(signer, issuer, artifact)
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Review.Submit(ctx, owner, registry.Submission{ServerJSON: []byte(fmt.Sprintf(sj, "1.0.0")), Tools: []byte(tools),
		Attestations: []registry.AttestationInput{{Bundle: bundle}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Review.Transition(ctx, rita, registry.ActionApprove, "io.github.acme/signed", "1.0.0", "ok"); err != nil {
		t.Fatal(err)
	}
	setPolicy(t, svc, rita, pol("someone@else.example"))
}

// setPolicy proposes p as rita and, a weakening being pending, confirms it
// as a second reviewer.
func setPolicy(t *testing.T, svc *registry.Services, rita *registry.Caller, p registry.Policy) {
	t.Helper()
	ctx := context.Background()
	out, err := svc.Review.SetPolicy(ctx, rita, "io.github.acme/signed", p, "signed releases")
	if err != nil {
		t.Fatal(err)
	}
	if out.GetPending() == nil {
		return
	}
	bob := &registry.Caller{Principal: "bob", Role: registry.RoleReviewer}
	if _, err := svc.Review.ConfirmPolicy(ctx, bob, "io.github.acme/signed", out.GetPending().GetDigest(), "second pair of eyes"); err != nil {
		t.Fatal(err)
	}
}

// TestServeTrustedRootValidation: a malformed or unreadable trusted root
// stops serve before anything starts.
func TestServeTrustedRootValidation(t *testing.T) {
	if _, err := run(t, map[string]string{"MCPREG_TRUSTED_ROOT": "no-equals-sign"}, "serve"); err == nil || !strings.Contains(err.Error(), "NAME=PATH") {
		t.Fatalf("malformed MCPREG_TRUSTED_ROOT: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "absent.json")
	db := "sqlite://" + filepath.Join(t.TempDir(), "x.db")
	if _, err := run(t, nil, "--db", db, "serve", "--trusted-root", "acme="+missing, "--http-addr", "127.0.0.1:0",
		"--grpc-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "--trusted-root acme") {
		t.Fatalf("unreadable trusted root: %v", err)
	}
}

// publishedNPM stands in for the npm registry: every version is published
// with the integrity of some other bytes.
type publishedNPM struct{}

func (publishedNPM) Integrity(context.Context, string, string) (attest.Digest, error) {
	return attest.DigestOf([]byte("published tarball"), attest.SHA512)
}
