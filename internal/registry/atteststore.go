package registry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// SourceAttestation marks findings about attestations.
const SourceAttestation = "attestation"

// attestPolicyByName loads a server's attestation policy outside any
// transaction (nil: no server yet, or no policy).
func (s *Attestations) attestPolicyByName(ctx context.Context, name string) (*attest.Policy, error) {
	srv, err := s.store.Client.Server.Query().Where(server.Name(name)).WithPolicy().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return storedAttestPolicy(srv.Edges.Policy)
}

// verifyItems verifies resolved inputs under p.
func (s *Attestations) verifyItems(items []attestationItem, p *attest.Policy) ([]verification, error) {
	out := make([]verification, len(items))
	for i, it := range items {
		v, err := s.verifyBundle(it.bundle, it.artifact(), p)
		if err != nil {
			return nil, atField(fmt.Sprintf("attestations[%d].bundle", i), err)
		}
		out[i] = v
	}
	return out, nil
}

// saveAttestations stores bundles with their verification results, and a
// high finding for each that does not verify under a policy.
func saveAttestations(ctx context.Context, tx *ent.Tx, versionID int, by string, items []attestationItem, vs []verification) error {
	var fs []recorded
	for i, it := range items {
		v := vs[i]
		err := tx.Attestation.Create().SetVersionID(versionID).SetPackageIndex(it.index).SetPackageRef(it.ref).
			SetArtifactDigest(it.digest.String()).SetDigestSource(it.source).SetBundle(it.bundle).
			SetBundleDigest(it.bundleDigest).SetVerified(v.verified).SetReceipt(v.receiptJSON).SetError(v.err).
			SetPolicyDigest(v.policyDigest).SetCheckedAt(v.checkedAt).SetAddedBy(by).SetCreatedAt(v.checkedAt).SetPending(it.pending).Exec(ctx)
		if err != nil {
			return fmt.Errorf("store attestation: %w", err)
		}
		if it.pending {
			continue // its findings are recorded when it is confirmed
		}
		if !v.verified && v.policyDigest != "" {
			fs = append(fs, attestationFinding(it.index, it.ref, v.err))
		}
		if it.mismatch != nil {
			fs = append(fs, it.mismatch.finding(it.index, it.ref))
		}
	}
	return saveFindings(ctx, tx, versionID, fs)
}

func attestationFinding(index int, ref, reason string) recorded {
	return recorded{Source: SourceAttestation, Finding: finding.Finding{Kind: "attestation_unverified", Severity: finding.High,
		Pointer: fmt.Sprintf("/packages/%d", index),
		Message: fmt.Sprintf("package %d (%s): attestation does not verify: %s", index, ref, reason)}}
}

func attestationsProto(as []*ent.Attestation) []*mcpregv1.Attestation {
	out := make([]*mcpregv1.Attestation, len(as))
	for i, a := range as {
		out[i] = attestationProto(a)
	}
	return out
}

func attestationProto(a *ent.Attestation) *mcpregv1.Attestation {
	out := &mcpregv1.Attestation{Id: int64(a.ID), PackageIndex: int32(a.PackageIndex), Package: a.PackageRef,
		ArtifactDigest: a.ArtifactDigest, DigestSource: a.DigestSource, Verified: a.Verified, Error: a.Error,
		CheckedAt: ts(a.CheckedAt), PolicyDigest: a.PolicyDigest, BundleDigest: a.BundleDigest,
		AddedBy: a.AddedBy, CreatedAt: ts(a.CreatedAt), Pending: a.Pending, ConfirmedBy: a.ConfirmedBy,
		ConfirmedAt: tsPtr(a.ConfirmedAt), OwnerDigest: !registryObtained(a.DigestSource)}
	if a.Verified && len(a.Receipt) > 0 {
		var r attest.Receipt
		if json.Unmarshal(a.Receipt, &r) == nil {
			addReceipt(out, &r)
		}
		out.Receipt = string(a.Receipt)
	}
	return out
}

// addReceipt copies a receipt's summary: signer, log entry, times.
func addReceipt(out *mcpregv1.Attestation, r *attest.Receipt) {
	if r.Identity != nil {
		out.Issuer, out.San, out.SourceRepository = r.Identity.Issuer, r.Identity.SAN, r.Identity.SourceRepositoryURI
	}
	out.KeyFingerprint = r.KeyFingerprint
	if len(r.TlogEntries) > 0 {
		e := r.TlogEntries[0]
		out.LogIndex, out.IntegratedTime = e.LogIndex, tsPtr(e.IntegratedTime)
	}
	if out.ArtifactDigest == "" {
		out.ArtifactDigest = r.ArtifactDigest
	}
}
