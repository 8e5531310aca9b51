package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/registry/pkg/model"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/attestation"
	"github.com/mcpreg/mcpreg/internal/ent/serverpolicy"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/states"
)

// ReverifyReport counts what a re-verification did.
type ReverifyReport struct {
	Checked, Passed, Failed int
	// Quarantined lists the versions quarantined, as NAME@VERSION.
	Quarantined []string
}

// Reverify re-runs every stored bundle against the current trusted roots
// and policies (admin only), e.g. after a root rotation or a policy change.
// An approved version whose attestations no longer satisfy a required
// policy is quarantined with an audited reason naming the artifact and why.
// Each version is one transaction; the run itself is audited too.
func (s *Attestations) Reverify(ctx context.Context, c *Caller) (*ReverifyReport, error) {
	if c.Role != RoleAdmin {
		return nil, deniedf("role %s may not re-verify attestations", c.Role)
	}
	if err := s.checkRootsLoaded(ctx); err != nil {
		return nil, err
	}
	ids, err := s.store.Client.Attestation.Query().Unique(true).Order(ent.Asc(attestation.FieldVersionID)).
		Select(attestation.FieldVersionID).Ints(ctx)
	if err != nil {
		return nil, fmt.Errorf("list attested versions: %w", err)
	}
	rep := &ReverifyReport{}
	for _, id := range ids {
		if err := s.store.WithTx(ctx, func(tx *ent.Tx) error { return s.reverifyVersion(ctx, tx, c, id, rep) }); err != nil {
			return nil, err
		}
	}
	err = s.store.WithTx(ctx, func(tx *ent.Tx) error {
		err := s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "attestation.reverify", Subject: "*",
			RequestID: c.RequestID, Details: fmt.Sprintf("checked=%d passed=%d failed=%d quarantined=%s",
				rep.Checked, rep.Passed, rep.Failed, strings.Join(rep.Quarantined, ","))})
		return err
	})
	return rep, err
}

func (s *Attestations) reverifyVersion(ctx context.Context, tx *ent.Tx, c *Caller, id int, rep *ReverifyReport) error {
	v, err := s.lockVersionByID(ctx, tx, id)
	if err != nil {
		return err
	}
	pol, err := policyOf(ctx, tx, v.ServerID)
	if err != nil {
		return err
	}
	atts, err := tx.Attestation.Query().Where(attestation.VersionID(id), attestation.Pending(false)).All(ctx)
	if err != nil {
		return err
	}
	pkgs, err := versionPackages(v.ServerJSON)
	if err != nil {
		return err
	}
	for _, a := range atts {
		var pkg model.Package
		if a.PackageIndex < len(pkgs) {
			pkg = pkgs[a.PackageIndex]
		}
		a, err = s.recheck(ctx, tx, a, pkg, pol.Attestation)
		if err != nil {
			return err
		}
		rep.Checked++
		if a.Verified {
			rep.Passed++
		} else {
			rep.Failed++
		}
	}
	if v.State != version.StateApproved || pol.Attestation == nil || !pol.Attestation.Required {
		return nil
	}
	gaps, err := s.attestationGaps(ctx, tx, v, pol.Attestation, time.Time{}, false)
	if err != nil || len(gaps) == 0 {
		return err
	}
	subject := subjectOf(v.Edges.Server.Name, v.Version)
	rep.Quarantined = append(rep.Quarantined, subject)
	return s.quarantineForReverify(ctx, tx, c, v, subject, "re-verification failed: "+strings.Join(gaps, "; "))
}

// quarantineForReverify takes an approved version out of discovery at once.
func (s *Attestations) quarantineForReverify(ctx context.Context, tx *ent.Tx, c *Caller, v *ent.Version, subject, reason string) error {
	return s.quarantine(ctx, tx, c.Principal, c.RequestID, v, subject, states.QuarantineReverify, reason)
}

// quarantine takes an approved version out of discovery at once for a
// reason the registry found itself (kind says which), recording the
// decision and its audit event in tx.
func (s *Attestations) quarantine(ctx context.Context, tx *ent.Tx, actor, requestID string, v *ent.Version, subject string, kind states.QuarantineKind, reason string) error {
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	now := s.now()
	err := tx.Version.UpdateOneID(v.ID).SetState(version.StateQuarantined).SetStateReason(reason).
		SetStateChangedAt(now).SetQuarantineKind(string(kind)).ClearQuarantineDriftID().Exec(ctx)
	if err != nil {
		return err
	}
	err = tx.ReviewDecision.Create().SetVersionID(v.ID).SetAction("quarantine").SetFromState(string(v.State)).
		SetToState(string(version.StateQuarantined)).SetActor(actor).SetReason(reason).SetRequestID(requestID).
		SetCreatedAt(now).Exec(ctx)
	if err != nil {
		return err
	}
	err = s.appendAudit(ctx, tx, AuditRecord{Actor: actor, Action: "version.quarantine", Subject: subject,
		Before: string(v.State), After: string(version.StateQuarantined), Reason: reason, RequestID: requestID,
		Details: "quarantine_kind=" + string(kind)})
	if err == nil {
		s.metrics.quarantined(kind)
	}
	return err
}

// checkRootsLoaded refuses to re-verify when a stored policy names a
// trusted root this process has not loaded: that is a configuration
// mistake (a missing --trusted-root), and re-verifying anyway would
// quarantine every version under that root.
func (s *Attestations) checkRootsLoaded(ctx context.Context) error {
	ps, err := s.store.Client.ServerPolicy.Query().Where(serverpolicy.AttestationNotNil()).WithServer().All(ctx)
	if err != nil {
		return err
	}
	var missing []string
	for _, p := range ps {
		ap, err := storedAttestPolicy(p)
		if err != nil {
			return err
		}
		if ap != nil && errors.Is(s.verifier.CheckPolicy(*ap), attest.ErrUnknownRoot) {
			missing = append(missing, fmt.Sprintf("%s names trusted root %q", p.Edges.Server.Name, ap.TrustedRoot))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: not re-verifying: the attestation policy of %s, which is not loaded (give --trusted-root NAME=PATH)",
			ErrFailedPrecondition, strings.Join(missing, "; "))
	}
	return nil
}
