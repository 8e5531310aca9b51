package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/serverjson"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// AddAttestation attaches a bundle to a version (an owner of its namespace,
// or an admin) and verifies it under the server's policy. A bundle that
// does not verify is stored with its error and a finding; the addition is
// audited.
func (s *Attestations) AddAttestation(ctx context.Context, c *Caller, name, ver string, in AttestationInput) (*VersionView, error) {
	v, err := s.attestableVersion(ctx, c, name, ver)
	if err != nil {
		return nil, err
	}
	item, ver2, err := s.verifyForVersion(ctx, v, in)
	if err != nil {
		return nil, err
	}
	err = s.store.WithTx(ctx, func(tx *ent.Tx) error {
		cur, err := s.lockVersionByID(ctx, tx, v.ID)
		if err != nil {
			return err
		}
		// On an approved version the attestation waits for a second
		// reviewer: what hosts see must not change on the owner's word.
		item.pending = cur.State == version.StateApproved
		if item.pending && item.mismatch != nil {
			// Nothing about an approved version may change on the owner's
			// word, not even a finding: refuse instead.
			return fmt.Errorf("%w: %s", ErrFailedPrecondition, item.mismatch.finding(item.index, item.ref).Message)
		}
		if err := saveAttestations(ctx, tx, v.ID, c.Principal, []attestationItem{item}, []verification{ver2}); err != nil {
			return err
		}
		err = s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "attestation.add", Subject: subjectOf(name, ver),
			RequestID: c.RequestID, Details: fmt.Sprintf("package %d (%s) digest=%s source=%s bundle=%s verified=%t pending=%t %s",
				item.index, item.ref, item.digest, item.source, item.bundleDigest, ver2.verified, item.pending, ver2.err)})
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.versionByID(ctx, v.ID)
}

// attestableVersion finds a version the caller may attach bundles to: in
// one of its namespaces, and neither rejected nor revoked.
func (s *Attestations) attestableVersion(ctx context.Context, c *Caller, name, ver string) (*ent.Version, error) {
	if err := checkReadName(c, name); err != nil {
		return nil, err
	}
	if ns, _, _ := strings.Cut(name, "/"); !c.OwnsNamespace(ns) {
		return nil, deniedf("%s may not attach attestations in namespace %q", c.Principal, ns)
	}
	v, err := s.store.Client.Version.Query().Where(serverIn(server.Name(name)), version.Version(ver)).WithServer().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFoundf("version %s", subjectOf(name, ver))
	} else if err != nil {
		return nil, err
	}
	if v.State == version.StateRejected || v.State == version.StateRevoked {
		return nil, &StateError{Subject: subjectOf(name, ver), Action: "attach an attestation to", Current: string(v.State),
			Allowed: []string{"pending_review", "approved", "quarantined"}}
	}
	return v, nil
}

func (s *Attestations) verifyForVersion(ctx context.Context, v *ent.Version, in AttestationInput) (attestationItem, verification, error) {
	doc, err := serverjson.Parse(v.ServerJSON)
	if err != nil {
		return attestationItem{}, verification{}, fmt.Errorf("stored server.json of version %d: %w", v.ID, err)
	}
	meta, err := registryMeta(doc.Raw)
	if err != nil {
		return attestationItem{}, verification{}, err
	}
	item, err := s.resolveAttestation(ctx, doc, meta, in, "attestation")
	if err != nil {
		return attestationItem{}, verification{}, err
	}
	pol, err := s.attestPolicyByName(ctx, v.Edges.Server.Name)
	if err != nil {
		return attestationItem{}, verification{}, err
	}
	vr, err := s.verifyBundle(item.bundle, item.artifact(), pol)
	return item, vr, atField("attestation.bundle", err)
}

// VerifyAttestation checks a bundle about an artifact digest against a
// policy through the same code path as submissions, and stores nothing.
// A bundle that reads but does not verify is a result with its reason.
func (s *Attestations) VerifyAttestation(ctx context.Context, c *Caller, bundleJSON []byte, digest string, artifact []byte, p *attest.Policy) (*mcpregv1.Attestation, error) {
	if p == nil {
		return nil, invalidf("policy is required")
	}
	if err := s.checkAttestPolicy(p); err != nil {
		return nil, err
	}
	if err := s.checkBundle(bundleJSON, "bundle"); err != nil {
		return nil, err
	}
	a, source, err := s.verifyArtifact(digest, artifact)
	if err != nil {
		return nil, err
	}
	v, err := s.verifyBundle(bundleJSON, a, p)
	if err != nil {
		return nil, atField("bundle", err)
	}
	out := &mcpregv1.Attestation{ArtifactDigest: a.Digest().String(), DigestSource: source, Verified: v.verified,
		Error: v.err, CheckedAt: ts(v.checkedAt), PolicyDigest: v.policyDigest, BundleDigest: sha256Text(bundleJSON),
		Receipt: string(v.receiptJSON)}
	if v.receipt != nil {
		addReceipt(out, v.receipt)
	}
	return out, nil
}

// verifyArtifact reads the artifact of a verify request: its bytes or its
// digest, exactly one.
func (s *Attestations) verifyArtifact(digest string, data []byte) (attest.Artifact, string, error) {
	switch {
	case data != nil && digest != "":
		return attest.Artifact{}, "", invalidf("give artifact or artifactDigest, not both")
	case data != nil:
		if err := s.checkArtifact(data, "artifact"); err != nil {
			return attest.Artifact{}, "", err
		}
		return attest.ArtifactBytes(data), DigestFromUpload, nil
	}
	d, err := attest.ParseDigest(digest)
	if err != nil {
		return attest.Artifact{}, "", invalidf("artifactDigest: %v", err)
	}
	return attest.ArtifactDigest(d), DigestFromRequest, nil
}
