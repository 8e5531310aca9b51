package registry

import (
	"context"
	"fmt"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/attestation"
)

// ConfirmAttestation makes a pending attestation count: one added to an
// approved version, which hosts, the scanner and approval checks ignore
// until a reviewer or admin other than the principal who added it
// confirms it. The confirmation is audited; the version's state does not
// change.
func (s *Attestations) ConfirmAttestation(ctx context.Context, c *Caller, name, ver string, id int64, reason string) (*VersionView, error) {
	if !c.MayDecide() {
		return nil, deniedf("role %s may not confirm attestations: a reviewer or admin confirms them", c.Role)
	}
	if err := checkTransitionArgs(c, name, reason); err != nil {
		return nil, err
	}
	subject := subjectOf(name, ver)
	var versionID int
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		v, err := s.lockVersion(ctx, tx, name, ver)
		if err != nil {
			return err
		}
		versionID = v.ID
		a, err := tx.Attestation.Query().Where(attestation.ID(int(id)), attestation.VersionID(v.ID)).Only(ctx)
		if ent.IsNotFound(err) {
			return notFoundf("attestation %d of version %s", id, subject)
		} else if err != nil {
			return err
		}
		if !a.Pending {
			return fmt.Errorf("%w: attestation %d of %s is not pending (confirmed by %q)", ErrFailedPrecondition, id, subject, a.ConfirmedBy)
		}
		if a.AddedBy == c.Principal {
			return deniedf("four-eyes: %s added attestation %d of %s and cannot confirm it", c.Principal, id, subject)
		}
		if err := a.Update().SetPending(false).SetConfirmedBy(c.Principal).SetConfirmedAt(s.now()).Exec(ctx); err != nil {
			return err
		}
		if !a.Verified && a.PolicyDigest != "" {
			if err := saveFindings(ctx, tx, v.ID, []recorded{attestationFinding(a.PackageIndex, a.PackageRef, a.Error)}); err != nil {
				return err
			}
		}
		err = s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "attestation.confirm", Subject: subject,
			Reason: reason, RequestID: c.RequestID, Details: fmt.Sprintf("attestation %d package %d (%s) digest=%s source=%s added_by=%s verified=%t",
				a.ID, a.PackageIndex, a.PackageRef, a.ArtifactDigest, a.DigestSource, a.AddedBy, a.Verified)})
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.versionByID(ctx, versionID)
}
