package registry

import (
	"context"
	"fmt"

	"github.com/mcpreg/mcpreg/internal/ent"
	entfinding "github.com/mcpreg/mcpreg/internal/ent/finding"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/states"
)

// A version imported from an upstream without its tools (the upstream is
// synced with tools=none, or the live read failed) is stored with an
// empty snapshot, source none, and a high upstream.no_snapshot finding
// that keeps it from approval: nothing would be pinned. A scan of such a
// version while it is pending review (asked by a reviewer, an admin or
// an owner of its namespace, under the scanner's rules and on-demand
// caps) is its first reading, not a comparison: what the server showed
// becomes the version's snapshot and pins (a new pin revision), its
// contract is normalised again over those tools, the findings computed
// over no tools are resolved (kept as history) and those over the tools
// read are recorded, as a submission's would be. The version stays
// pending; reviewers then review and approve it as any other, four-eyes
// against upstream:NAME.

// firstRead is what a first reading brings, computed before the scan's
// transaction (the shadowing check reads the discovery index).
type firstRead struct {
	contract *parsedContract
	text     []recorded
}

// awaitsFirstRead reports whether v is pending review with no tool
// snapshot (its current pins cover the empty snapshot of an import).
func (s *core) awaitsFirstRead(ctx context.Context, client *ent.Client, v *ent.Version) (bool, error) {
	if v.State != version.StatePendingReview {
		return false, nil
	}
	pr, err := client.PinRevision.Query().Where(pinRevisionIs(v.ID, v.PinRevision)...).Only(ctx)
	if err != nil {
		return false, fmt.Errorf("current pins of version %d: %w", v.ID, err)
	}
	snap, err := client.ToolSnapshot.Get(ctx, pr.SnapshotID)
	if err != nil {
		return false, err
	}
	return snap.Source == SnapshotSourceNone, nil
}

// prepareFirstRead normalises v's contract over the tools read and runs
// the submission's detectors on them.
func (s *Scans) prepareFirstRead(ctx context.Context, v *ent.Version, rd reading) (*firstRead, error) {
	tl := rd.model.list
	pc, err := s.parseContract(v.ContractRaw, v.ServerJSON, tl)
	if err != nil {
		return nil, fmt.Errorf("stored contract of version %d: %w", v.ID, err)
	}
	text, err := s.discovery.textFindings(ctx, v.Edges.Server.Name, tl)
	if err != nil {
		return nil, err
	}
	return &firstRead{contract: pc, text: text}, nil
}

// storeFirstRead makes scan scanID's reading the snapshot and pins of v
// (locked in tx, still awaiting its first reading), in the scan's
// transaction; upd is the scan's update, to which it adds the outcome
// (match: the pins are now what the server showed). The reading's own
// findings (settleScan added the contract's authorization findings to
// them) are recorded as the scan's.
func (s *Scans) storeFirstRead(ctx context.Context, tx *ent.Tx, v *ent.Version, scanID int, rd reading, fr *firstRead, by string, upd *ent.ScanUpdateOne) error {
	subject := subjectOf(v.Edges.Server.Name, v.Version)
	cur, err := tx.PinRevision.Query().Where(pinRevisionIs(v.ID, v.PinRevision)...).Only(ctx)
	if err != nil {
		return err
	}
	tl := rd.model.list
	pins, err := computePins(cur.SpecVersion, tl)
	if err != nil {
		return err
	}
	pins.scopes, pins.auth = rd.scopes, authOf(rd)
	init, err := ParseInitializeResult(rd.snap.InitializeResult, s.limits.Pin)
	if err != nil {
		return err
	}
	snap, err := s.createSnapshot(ctx, tx, v.ID, "scan", tl, init, pins)
	if err != nil {
		return err
	}
	rev := v.PinRevision + 1
	why := fmt.Sprintf("first reading of the tools, by scan %d (imported with no tool snapshot)", scanID)
	if err := s.createPinRevision(ctx, tx, v.ID, rev, snap.ID, pins, fr.contract.hash, by, why); err != nil {
		return err
	}
	if err := tx.Version.UpdateOneID(v.ID).SetPinRevision(rev).SetContract(fr.contract.json).Exec(ctx); err != nil {
		return err
	}
	// What was found over no tools is history now: the no-snapshot
	// finding, and the contract's findings over the contract normalised
	// over none. The upstream's other findings (deprecated, deleted,
	// conflict) still hold.
	stale := entfinding.Or(entfinding.Kind(KindUpstreamNoSnapshot), entfinding.SourceIn(SourceSubmission, SourceContract, SourceScan))
	if err := tx.Finding.Update().Where(entfinding.VersionID(v.ID), entfinding.ResolvedAtIsNil(), stale).
		SetResolvedAt(s.now()).Exec(ctx); err != nil {
		return err
	}
	more := fr.text
	for _, f := range rd.snap.Findings {
		more = append(more, recorded{Finding: f, Source: SourceScan, ScanID: scanID})
	}
	n, err := s.saveVersionFindings(ctx, tx, v.ServerID, v.ID, v.Version, fr.contract, tl, more)
	if err != nil {
		return err
	}
	if err := upd.SetOutcome(string(states.OutcomeMatch)).Exec(ctx); err != nil {
		return err
	}
	return s.appendAudit(ctx, tx, AuditRecord{Actor: by, Action: "version.first_read", Subject: subject,
		Before: string(v.State), After: string(v.State),
		Details: fmt.Sprintf("pin_revision=%d->%d scan=%d tools=%d toolDefinitionHash=%s contractHash=%s findings=%d",
			v.PinRevision, rev, scanID, len(tl.Tools), pins.ToolDefinitionHash, fr.contract.hash, n)})
}
