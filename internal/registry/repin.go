package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/scan"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/pin"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Repin moves a version pinned under mcpreg-pin-v1 to mcpreg-pin-v2. Its
// tools, instructions and serverInfo stay exactly as approved (the v1
// hashes do not move); the prompts, resources and resource templates
// come from the version's latest scan, which must have matched the
// approved pins, so what is pinned is what the server serves next to the
// approved tools. From then on hosts compare prompts and scans raise
// prompt and resource drift.
//
// The reviewer approves text nobody reviewed before, so it is four-eyes
// like approval: not by the principal that submitted the version. The
// version's state does not change. A revoked or rejected version is not
// re-pinned.
func (s *Scans) Repin(ctx context.Context, c *Caller, name, ver, reason string) (*mcpregv1.Version, error) {
	if err := checkTransitionArgs(c, name, reason); err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	subject := subjectOf(name, ver)
	var id int
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		v, err := s.lockVersion(ctx, tx, name, ver)
		if err != nil {
			return err
		}
		id = v.ID
		if v.SubmittedBy == c.Principal {
			return deniedf("four-eyes: %s submitted %s and cannot re-pin it", c.Principal, subject)
		}
		if v.State == version.StateRevoked || v.State == version.StateRejected {
			return &StateError{Subject: subject, Action: "repin", Current: string(v.State),
				Allowed: []string{string(version.StatePendingReview), string(version.StateApproved), string(version.StateQuarantined)}}
		}
		cur, err := tx.PinRevision.Query().Where(pinRevisionIs(v.ID, v.PinRevision)...).Only(ctx)
		if err != nil {
			return err
		}
		if cur.SpecVersion == pin.SpecVersionV2 {
			return fmt.Errorf("%w: %s is already pinned under %s (revision %d)", ErrFailedPrecondition, subject, pin.SpecVersionV2, cur.Revision)
		}
		sc, err := s.repinSource(ctx, tx, v, name, subject)
		if err != nil {
			return err
		}
		return s.repinFrom(ctx, tx, c, v, cur, sc, subject, reason)
	})
	if err != nil {
		return nil, err
	}
	return s.versionByID(ctx, id)
}

// repinSource is the version's latest finished scan, which must have
// matched the approved pins and read prompts and resources.
func (s *Scans) repinSource(ctx context.Context, tx *ent.Tx, v *ent.Version, name, subject string) (*ent.Scan, error) {
	sc, err := tx.Scan.Query().Where(scan.VersionID(v.ID), scan.OutcomeNEQ(string(states.OutcomeRunning))).
		Order(ent.Desc(scan.FieldFinishedAt), ent.Desc(scan.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, fmt.Errorf("%w: %s has not been scanned: scan it (mcpreg scan %s %s), review what it lists, then re-pin",
			ErrFailedPrecondition, subject, name, v.Version)
	} else if err != nil {
		return nil, err
	}
	if states.ScanOutcome(sc.Outcome) != states.OutcomeMatch {
		return nil, fmt.Errorf("%w: the latest scan of %s (scan %d) is %s, not %s: re-pinning takes prompts and resources from a scan whose tools match the approved pins; decide its drift or scan again first",
			ErrFailedPrecondition, subject, sc.ID, sc.Outcome, states.OutcomeMatch)
	}
	if sc.PromptsHash == "" { // every scan since prompts are read has one
		return nil, fmt.Errorf("%w: the latest scan of %s (scan %d) predates reading prompts and resources: scan again, then re-pin",
			ErrFailedPrecondition, subject, sc.ID)
	}
	return sc, nil
}

// repinFrom stores the approved tools with the scan's prompts and
// resources as a new snapshot and pin revision under mcpreg-pin-v2.
func (s *Scans) repinFrom(ctx context.Context, tx *ent.Tx, c *Caller, v *ent.Version, cur *ent.PinRevision, sc *ent.Scan, subject, reason string) error {
	ap, err := s.approvedSnapshot(ctx, tx.Client(), v)
	if err != nil {
		return err
	}
	approved := ap.list
	scanned, err := pin.ParseToolsList(sc.ToolsFile, s.limits.Pin)
	if err != nil {
		return fmt.Errorf("stored scan %d: %w", sc.ID, err)
	}
	approved.Prompts, approved.Resources, approved.ResourceTemplates = scanned.Prompts, scanned.Resources, scanned.ResourceTemplates
	pins, err := computePins(pin.SpecVersionV2, approved)
	if err != nil {
		return fmt.Errorf("%w: scan %d: %w", ErrFailedPrecondition, sc.ID, err)
	}
	if pins.ToolDefinitionHash != cur.ToolDefinitionHash || pins.InstructionsHash != cur.InstructionsHash {
		return fmt.Errorf("re-pinning %s moved its v1 pins", subject) // the approved snapshot is what they were computed from
	}
	old, err := tx.ToolSnapshot.Get(ctx, cur.SnapshotID)
	if err != nil {
		return err
	}
	for _, t := range cur.Tools { // the tools are the approved ones, with their scopes
		if t.Scopes != nil {
			if pins.scopes == nil {
				pins.scopes = map[string][]string{}
			}
			pins.scopes[t.Name] = t.Scopes
		}
	}
	pins.auth = sc.Auth // what the server said of its authorization next to these prompts
	snap, err := s.createSnapshot(ctx, tx, v.ID, "repin", approved,
		&InitializeFacts{ProtocolVersion: old.ProtocolVersion, ServerInfo: old.ServerInfo}, pins)
	if err != nil {
		return err
	}
	rev := v.PinRevision + 1
	why := fmt.Sprintf("re-pinned to %s with the prompts and resources of scan %d: %s", pin.SpecVersionV2, sc.ID, reason)
	if err := s.createPinRevision(ctx, tx, v.ID, rev, snap.ID, pins, cur.ContractHash, c.Principal, why); err != nil {
		return err
	}
	if err := tx.Version.UpdateOneID(v.ID).SetPinRevision(rev).Exec(ctx); err != nil {
		return err
	}
	return s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "version.repin", Subject: subject,
		Before: string(v.State), After: string(v.State), Reason: reason, RequestID: c.RequestID,
		Details: fmt.Sprintf("pin_revision=%d->%d spec=%s->%s scan=%d prompts=%d resources=%d resourceTemplates=%d promptsHash=%s resourcesHash=%s",
			v.PinRevision, rev, cur.SpecVersion, pin.SpecVersionV2, sc.ID, len(approved.Prompts), len(approved.Resources),
			len(approved.ResourceTemplates), pins.PromptsHash, pins.ResourcesHash)})
}
