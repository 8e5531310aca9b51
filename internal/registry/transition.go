package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/scan"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/states"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Action is a lifecycle transition.
type Action string

// The transitions of the version lifecycle (README, API overview).
const (
	ActionApprove    Action = "approve"
	ActionReject     Action = "reject"
	ActionQuarantine Action = "quarantine"
	ActionRelease    Action = "release"
	ActionRevoke     Action = "revoke"
)

type transitionRule struct {
	from []version.State
	to   version.State
}

var lifecycle = map[Action]transitionRule{
	ActionApprove:    {from: []version.State{version.StatePendingReview}, to: version.StateApproved},
	ActionReject:     {from: []version.State{version.StatePendingReview}, to: version.StateRejected},
	ActionQuarantine: {from: []version.State{version.StateApproved}, to: version.StateQuarantined},
	ActionRelease:    {from: []version.State{version.StateQuarantined}, to: version.StateApproved},
	ActionRevoke:     {from: []version.State{version.StateApproved, version.StateQuarantined}, to: version.StateRevoked},
}

const maxReason = 2000

// Transition moves a version along the lifecycle, with a decision record and
// an audit event in the same transaction.
// Approval and release pass checkAdmission: acks must cover every widening
// of the version's capability contract against the previous approved
// version.
func (s *Review) Transition(ctx context.Context, c *Caller, a Action, name, ver, reason string, acks ...string) (*mcpregv1.Version, error) {
	rule, ok := lifecycle[a]
	if !ok {
		return nil, invalidf("unknown action %q", a)
	}
	if err := checkTransitionArgs(c, name, reason); err != nil {
		return nil, err
	}
	var id int
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		v, err := s.lockVersion(ctx, tx, name, ver)
		if err != nil {
			return err
		}
		if err := checkTransition(c, a, rule, v, subjectOf(name, ver)); err != nil {
			return err
		}
		id = v.ID
		details := ""
		if a == ActionApprove || a == ActionRelease {
			if details, err = s.attest.checkAdmission(ctx, tx, v, a, subjectOf(name, ver), acks); err != nil {
				return err
			}
		}
		if a == ActionRelease {
			if err := s.checkDriftRelease(ctx, tx, v, subjectOf(name, ver)); err != nil {
				return err
			}
			if err := s.resolveQuarantineDrift(ctx, tx, c, v, strings.TrimSpace(reason)); err != nil {
				return err
			}
		}
		return s.applyTransition(ctx, tx, c, a, rule, v, subjectOf(name, ver), strings.TrimSpace(reason), details)
	})
	if err != nil {
		return nil, err
	}
	if a == ActionQuarantine {
		s.metrics.quarantined(states.QuarantineManual)
	}
	return s.versionByID(ctx, id)
}

func checkTransitionArgs(c *Caller, name, reason string) error {
	if !c.MayDecide() {
		return deniedf("role %s may not change version states", c.Role)
	}
	if strings.TrimSpace(reason) == "" {
		return invalidf("reason is required")
	}
	if len(reason) > maxReason {
		return invalidf("reason is longer than %d bytes", maxReason)
	}
	if !serverNameRE.MatchString(name) {
		return invalidf("server name %q does not match ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", name)
	}
	return nil
}

func (s *core) lockVersion(ctx context.Context, tx *ent.Tx, name, ver string) (*ent.Version, error) {
	q := tx.Version.Query().Where(versionNamed(name, ver)...)
	if s.store.RowLocks() {
		q = q.ForUpdate()
	}
	v, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFoundf("version %s", subjectOf(name, ver))
	}
	return v, err
}

func checkTransition(c *Caller, a Action, rule transitionRule, v *ent.Version, subject string) error {
	allowed := false
	for _, f := range rule.from {
		allowed = allowed || v.State == f
	}
	if !allowed {
		names := make([]string, len(rule.from))
		for i, f := range rule.from {
			names[i] = string(f)
		}
		return &StateError{Subject: subject, Action: string(a), Current: string(v.State), Allowed: names}
	}
	if a == ActionApprove && v.SubmittedBy == c.Principal {
		return deniedf("four-eyes: %s submitted %s and cannot approve it", c.Principal, subject)
	}
	return nil
}

func (s *Review) applyTransition(ctx context.Context, tx *ent.Tx, c *Caller, a Action, rule transitionRule, v *ent.Version, subject, reason, details string) error {
	now := s.now()
	upd := tx.Version.UpdateOneID(v.ID).SetState(rule.to).SetStateReason(reason).SetStateChangedAt(now)
	if a == ActionQuarantine {
		upd = upd.SetQuarantineKind(string(states.QuarantineManual))
	} else {
		upd = upd.SetQuarantineKind(string(states.QuarantineNone)).ClearQuarantineDriftID()
	}
	err := upd.Exec(ctx)
	if err != nil {
		return fmt.Errorf("update state: %w", err)
	}
	err = tx.ReviewDecision.Create().SetVersionID(v.ID).SetAction(string(a)).SetFromState(string(v.State)).
		SetToState(string(rule.to)).SetActor(c.Principal).SetReason(reason).SetRequestID(c.RequestID).
		SetCreatedAt(now).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record decision: %w", err)
	}
	err = s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "version." + string(a), Subject: subject,
		Before: string(v.State), After: string(rule.to), Reason: reason, RequestID: c.RequestID, Details: details})
	return err
}

// checkDriftRelease: a version quarantined for drift is released only
// after a scan newer than the quarantine matched the approved pins (besides
// the gates of checkAdmission); other quarantines need the reviewer's
// decision alone.
func (s *Review) checkDriftRelease(ctx context.Context, tx *ent.Tx, v *ent.Version, subject string) error {
	if states.QuarantineKind(v.QuarantineKind) != states.QuarantineDrift {
		return nil
	}
	n, err := tx.Scan.Query().Where(scan.VersionID(v.ID), scan.Outcome(string(states.OutcomeMatch)), scan.StartedAtGT(v.StateChangedAt)).Count(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: %s was quarantined for drift: releasing it needs a fresh scan whose pins match the approved ones (mcpreg scan %s), or accept the drift",
			ErrFailedPrecondition, subject, strings.Replace(subject, "@", " ", 1))
	}
	return nil
}

// resolveQuarantineDrift closes the drift behind a drift quarantine that
// is being released (a scan newer than the quarantine matched the pins):
// an open event becomes resolved, and the findings its scan raised are
// marked resolved by it.
func (s *Review) resolveQuarantineDrift(ctx context.Context, tx *ent.Tx, c *Caller, v *ent.Version, reason string) error {
	if states.QuarantineKind(v.QuarantineKind) != states.QuarantineDrift || v.QuarantineDriftID == nil {
		return nil
	}
	ev, err := tx.DriftEvent.Get(ctx, *v.QuarantineDriftID)
	if err != nil {
		return fmt.Errorf("drift event %d of the quarantine: %w", *v.QuarantineDriftID, err)
	}
	if states.DriftStatus(ev.Status) == states.DriftOpen {
		err := tx.DriftEvent.UpdateOneID(ev.ID).SetStatus(string(states.DriftResolved)).SetResolvedBy(c.Principal).
			SetResolutionReason("released after a scan matched the pins again: " + reason).SetResolvedAt(s.now()).Exec(ctx)
		if err != nil {
			return err
		}
	}
	return s.resolveDriftFindings(ctx, tx, ev)
}
