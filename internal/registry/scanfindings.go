package registry

import (
	"context"
	"fmt"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/ent"
	entfinding "github.com/mcpreg/mcpreg/internal/ent/finding"
	"github.com/mcpreg/mcpreg/internal/ent/scan"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/pin"
	livescan "github.com/mcpreg/mcpreg/scan"
)

// SourceScan marks findings raised by scans.
const SourceScan = "scan"

// failuresForFinding consecutive failed scans become a finding.
const failuresForFinding = 3

// scanFindings records what a scan's live text shows (poisoning
// indicators in tools, instructions, prompts and resources;
// bait-and-switch between listings; another face for another protocol
// version) that the version does not already carry. Prompts and resources
// are scanned whatever the version's pin specification: a version pinned
// under v1 raises no drift for them, but its reviewers see what they say.
func (s *Scans) scanFindings(ctx context.Context, tx *ent.Tx, versionID, scanID int, live *pin.ToolsList, snap *livescan.Snapshot) error {
	fs := append(diffreview.PoisoningModel(live), snap.Findings...)
	return s.addNewFindings(ctx, tx, versionID, scanID, fs)
}

// addNewFindings stores the findings of fs the version does not carry yet
// (same kind, tool, pointer and evidence), as raised by scan scanID (0:
// not by a scan).
func (s *core) addNewFindings(ctx context.Context, tx *ent.Tx, versionID, scanID int, fs []finding.Finding) error {
	have, err := tx.Finding.Query().Where(entfinding.VersionID(versionID), entfinding.ResolvedAtIsNil()).All(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, f := range have {
		seen[f.Kind+"\x00"+f.Tool+"\x00"+f.Pointer+"\x00"+f.Evidence] = true
	}
	var add []recorded
	for _, f := range fs {
		if k := f.Kind + "\x00" + f.Tool + "\x00" + f.Pointer + "\x00" + f.Evidence; !seen[k] {
			seen[k] = true
			add = append(add, recorded{Finding: f, Source: SourceScan, ScanID: scanID})
		}
	}
	return saveFindings(ctx, tx, versionID, add)
}

// noteRepeatedFailures turns a run of failed scans into a finding; the
// version's state never changes because its server was unreachable.
func (s *Scans) noteRepeatedFailures(ctx context.Context, versionID int, lastErr string) error {
	recent, err := s.store.Client.Scan.Query().Where(scan.VersionID(versionID), scan.OutcomeNEQ(string(states.OutcomeRunning))).
		Order(ent.Desc(scan.FieldID)).Limit(failuresForFinding).All(ctx)
	if err != nil || len(recent) < failuresForFinding {
		return err
	}
	for _, sc := range recent {
		if states.ScanOutcome(sc.Outcome) != states.OutcomeError {
			return nil
		}
	}
	return s.store.WithTx(ctx, func(tx *ent.Tx) error {
		return s.addNewFindings(ctx, tx, versionID, recent[0].ID, []finding.Finding{{Kind: "scan.repeated_failures", Severity: finding.Medium,
			Message:  fmt.Sprintf("the last %d scans could not read the server; the version stays as it was", failuresForFinding),
			Evidence: lastErr}})
	})
}

// resolveDriftFindings makes the findings drift event ev's scan raised
// history: kept, marked resolved by ev, no longer current.
func (s *core) resolveDriftFindings(ctx context.Context, tx *ent.Tx, ev *ent.DriftEvent) error {
	return tx.Finding.Update().Where(entfinding.VersionID(ev.VersionID), entfinding.ScanID(ev.ScanID), entfinding.ResolvedAtIsNil()).
		SetResolvedByDrift(ev.ID).SetResolvedAt(s.now()).Exec(ctx)
}
