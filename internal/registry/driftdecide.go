package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/driftevent"
	"github.com/mcpreg/mcpreg/internal/ent/schema"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/pin"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// AcceptDrift re-pins a version to the snapshot of a drift event: a new pin
// revision (the old ones stay as history), the event accepted, a version
// quarantined for it approved again. Quarantining events can be accepted,
// and warned ones that hosts block on (a tool's hash or the instructions
// moved). It is a re-approval: four-eyes
// (not by the principal that submitted the version) and the gates of
// approve and release (checkAdmission), acks covering the contract's
// widenings.
func (s *Scans) AcceptDrift(ctx context.Context, c *Caller, eventID int, reason string, acks ...string) (*mcpregv1.Version, error) {
	var id int
	err := s.decideDrift(ctx, c, eventID, reason, true, func(tx *ent.Tx, v *ent.Version, ev *ent.DriftEvent) error {
		subject := subjectOf(v.Edges.Server.Name, v.Version)
		if v.SubmittedBy == c.Principal {
			return deniedf("four-eyes: %s submitted %s and cannot accept its drift", c.Principal, subject)
		}
		details, err := s.attest.checkAdmission(ctx, tx, v, actionAcceptDrift, subject, acks)
		if err != nil {
			return err
		}
		id = v.ID
		return s.repin(ctx, tx, c, v, ev, strings.TrimSpace(reason), details)
	})
	if err != nil {
		return nil, err
	}
	return s.versionByID(ctx, id)
}

// DeclineDrift closes a drift event without re-pinning; a version
// quarantined for it stays quarantined.
func (s *Scans) DeclineDrift(ctx context.Context, c *Caller, eventID int, reason string) (*mcpregv1.Version, error) {
	var id int
	err := s.decideDrift(ctx, c, eventID, reason, false, func(tx *ent.Tx, v *ent.Version, ev *ent.DriftEvent) error {
		id = v.ID
		return s.closeDrift(ctx, tx, c, v, ev, states.DriftDeclined, strings.TrimSpace(reason), "")
	})
	if err != nil {
		return nil, err
	}
	return s.versionByID(ctx, id)
}

// decideDrift runs fn on an open drift event and its locked version. With
// repin, a warned event that hosts block on (see blocksHosts) may be
// decided too.
func (s *Scans) decideDrift(ctx context.Context, c *Caller, eventID int, reason string, repin bool, fn func(*ent.Tx, *ent.Version, *ent.DriftEvent) error) error {
	if !c.MayDecide() {
		return deniedf("role %s may not decide drift", c.Role)
	}
	if strings.TrimSpace(reason) == "" {
		return invalidf("reason is required")
	}
	return s.store.WithTx(ctx, func(tx *ent.Tx) error {
		ev, err := tx.DriftEvent.Query().Where(driftevent.ID(eventID)).Only(ctx)
		if ent.IsNotFound(err) {
			return notFoundf("drift event %d", eventID)
		} else if err != nil {
			return err
		}
		v, err := s.lockVersionByID(ctx, tx, ev.VersionID)
		if err != nil {
			return err
		}
		if err := decidable(ev, repin); err != nil {
			return err
		}
		if ev.PinRevision != v.PinRevision {
			return fmt.Errorf("%w: drift event %d compared pin revision %d, the version is now at %d", ErrFailedPrecondition, ev.ID, ev.PinRevision, v.PinRevision)
		}
		return fn(tx, v, ev)
	})
}

// decidable: an open event can be accepted or declined; a warned one only
// accepted, and only when hosts block on it.
func decidable(ev *ent.DriftEvent, repin bool) error {
	status := states.DriftStatus(ev.Status)
	switch {
	case status == states.DriftOpen:
		return nil
	case status == states.DriftWarned && repin && blocksHosts(ev.Changes):
		return nil
	case status == states.DriftWarned && repin:
		return fmt.Errorf("%w: drift event %d is warn-only and moves no tool's pin or the instructions (%s): hosts only report it, there is nothing to re-pin",
			ErrFailedPrecondition, ev.ID, driftSummary(ev.Changes))
	}
	return fmt.Errorf("%w: drift event %d is %s, not %s", ErrFailedPrecondition, ev.ID, ev.Status, states.DriftOpen)
}

// blocksHosts reports whether drift changes a served tool's pinned hash
// (any tool change but a removal) or the instructions: hosts block what
// the signed pins do not cover, so such warned drift must be re-pinnable.
func blocksHosts(changes []schema.DriftChange) bool {
	for _, c := range changes {
		class := diffreview.Class(c.Class)
		if (c.Tool != "" && class != diffreview.ClassToolRemoved) || class == diffreview.ClassInstructionsChanged {
			return true
		}
	}
	return false
}

// repin stores the drifted snapshot as the version's new pins.
func (s *Scans) repin(ctx context.Context, tx *ent.Tx, c *Caller, v *ent.Version, ev *ent.DriftEvent, reason, details string) error {
	sc, err := tx.Scan.Get(ctx, ev.ScanID)
	if err != nil {
		return err
	}
	tl, err := pin.ParseToolsList(sc.ToolsFile, s.limits.Pin)
	if err != nil {
		return fmt.Errorf("stored scan %d: %w", sc.ID, err)
	}
	init, err := ParseInitializeResult(sc.InitializeResult, s.limits.Pin)
	if err != nil {
		return err
	}
	cur, err := tx.PinRevision.Query().Where(pinRevisionIs(v.ID, v.PinRevision)...).Only(ctx)
	if err != nil {
		return err
	}
	// The new pins follow the specification of the ones they replace.
	pins, err := computePins(cur.SpecVersion, tl)
	if err != nil {
		return err
	}
	pins.scopes, pins.auth = sc.ToolScopes, sc.Auth
	snap, err := s.createSnapshot(ctx, tx, v.ID, "scan", tl, init, pins)
	if err != nil {
		return err
	}
	rev := v.PinRevision + 1
	if err := s.createPinRevision(ctx, tx, v.ID, rev, snap.ID, pins, cur.ContractHash, c.Principal, "accepted drift event "+itoa(ev.ID)+": "+reason); err != nil {
		return err
	}
	upd := tx.Version.UpdateOneID(v.ID).SetPinRevision(rev)
	// Accepting quarantine-class drift releases a drift quarantine;
	// accepting a warned event re-pins and leaves the state alone.
	if v.State == version.StateQuarantined && states.QuarantineKind(v.QuarantineKind) == states.QuarantineDrift &&
		states.DriftStatus(ev.Status) == states.DriftOpen {
		upd = upd.SetState(version.StateApproved).SetStateReason(reason).SetStateChangedAt(s.now()).
			SetQuarantineKind(string(states.QuarantineNone)).ClearQuarantineDriftID()
	}
	if err := upd.Exec(ctx); err != nil {
		return err
	}
	return s.closeDrift(ctx, tx, c, v, ev, states.DriftAccepted, reason, details)
}

// closeAction is the audit action of closing a drift event with a status.
var closeAction = map[states.DriftStatus]string{states.DriftAccepted: "drift.accept", states.DriftDeclined: "drift.decline"}

func (s *Scans) closeDrift(ctx context.Context, tx *ent.Tx, c *Caller, v *ent.Version, ev *ent.DriftEvent, status states.DriftStatus, reason, details string) error {
	err := tx.DriftEvent.UpdateOneID(ev.ID).SetStatus(string(status)).SetResolvedBy(c.Principal).
		SetResolutionReason(reason).SetResolvedAt(s.now()).Exec(ctx)
	if err != nil {
		return err
	}
	if status == states.DriftAccepted {
		if err := s.resolveDriftFindings(ctx, tx, ev); err != nil {
			return err
		}
	}
	after, err := tx.Version.Get(ctx, v.ID)
	if err != nil {
		return err
	}
	err = s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: closeAction[status],
		Subject: subjectOf(v.Edges.Server.Name, v.Version), Before: string(v.State), After: string(after.State),
		Reason: reason, RequestID: c.RequestID,
		Details: strings.TrimSpace(fmt.Sprintf("drift_event=%d pin_revision=%d->%d %s", ev.ID, v.PinRevision, after.PinRevision, details))})
	return err
}
