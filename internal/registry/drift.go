package registry

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/pinrevision"
	"github.com/mcpreg/mcpreg/internal/ent/predicate"
	"github.com/mcpreg/mcpreg/internal/ent/schema"
	"github.com/mcpreg/mcpreg/internal/ent/tool"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/pin"
	livescan "github.com/mcpreg/mcpreg/scan"
)

// approved is what a version's current pins were computed from.
type approved struct {
	// list holds the tools, instructions, prompts, resources and
	// resource templates; serverInfo the raw serverInfo; spec the pin
	// specification; auth the OAuth record (see authOf), nil if unknown.
	list       *pin.ToolsList
	serverInfo []byte
	spec       string
	auth       []byte
}

// approvedSnapshot rebuilds what a version's current pins were computed
// from.
func (s *core) approvedSnapshot(ctx context.Context, tx *ent.Client, v *ent.Version) (approved, error) {
	pr, err := tx.PinRevision.Query().Where(pinRevisionIs(v.ID, v.PinRevision)...).Only(ctx)
	if err != nil {
		return approved{}, fmt.Errorf("current pins of version %d: %w", v.ID, err)
	}
	snap, err := tx.ToolSnapshot.Get(ctx, pr.SnapshotID)
	if err != nil {
		return approved{}, err
	}
	tools, err := tx.Tool.Query().Where(tool.SnapshotID(snap.ID)).Order(ent.Asc(tool.FieldPosition)).All(ctx)
	if err != nil {
		return approved{}, err
	}
	tl := &pin.ToolsList{Instructions: snap.Instructions, Tools: make([]pin.Tool, len(tools))}
	for i, t := range tools {
		tl.Tools[i] = pin.Tool{Name: t.Name, Raw: t.Raw}
	}
	if err := s.addModelArrays(tl, snap); err != nil {
		return approved{}, err
	}
	return approved{list: tl, serverInfo: snap.ServerInfo, spec: pr.SpecVersion, auth: snap.Auth}, nil
}

// driftUnder compares approved and live under the version's pin
// specification: prompts and resources drift only under mcpreg-pin-v2.
func (s *Scans) driftUnder(spec string, approved, live *pin.ToolsList, approvedInfo, liveInfo []byte) []diffreview.Change {
	if spec == pin.SpecVersionV2 {
		return s.driftPolicy().DriftV2(approved, live, approvedInfo, liveInfo)
	}
	return s.driftPolicy().Drift(approved, live, approvedInfo, liveInfo)
}

// settleScan compares a successful scan with the approved pins, records
// the drift event if any, and quarantines at once when the drift policy
// says so. All of it commits in one transaction with its audit event.
//
// A version still awaiting its first reading (firstread.go) takes this
// one as its snapshot instead.
func (s *Scans) settleScan(ctx context.Context, v *ent.Version, scanID int, rd reading, by string) error {
	snap := rd.snap
	var fr *firstRead
	if first, err := s.awaitsFirstRead(ctx, s.store.Client, v); err != nil {
		return err
	} else if first {
		if fr, err = s.prepareFirstRead(ctx, v, rd); err != nil {
			return err
		}
	}
	return s.store.WithTx(ctx, func(tx *ent.Tx) error {
		cur, err := s.lockVersionByID(ctx, tx, v.ID)
		if err != nil {
			return err
		}
		first := false
		if fr != nil { // again, under the lock: another scan may have read it first
			if first, err = s.awaitsFirstRead(ctx, tx.Client(), cur); err != nil {
				return err
			}
		}
		ap, err := s.approvedSnapshot(ctx, tx.Client(), cur)
		if err != nil {
			return err
		}
		live, liveAuth := rd.model, authOf(rd)
		changes := append(authDrift(s.driftPolicy(), ap.auth, liveAuth), s.driftUnder(ap.spec, ap.list, live.list, ap.serverInfo, snap.ServerInfo)...)
		fs, err := contractAuthFindings(cur, snap.Auth)
		if err != nil {
			return err
		}
		snap.Findings = append(slices.Clone(snap.Findings), fs...)
		upd := tx.Scan.UpdateOneID(scanID).SetFinishedAt(s.now()).SetToolsFile(live.file).
			SetInitializeResult(snap.InitializeResult).SetToolDefinitionHash(live.pins.ToolDefinitionHash).
			SetSchemaHash(live.pins.SchemaHash).SetInstructionsHash(live.pins.InstructionsHash).
			SetPromptsHash(live.pins.PromptsHash).SetResourcesHash(live.pins.ResourcesHash).SetToolScopes(rd.scopes).SetAuth(liveAuth).
			SetProtocolVersions(protocolVersions(snap)).SetReadings(readingsRecord(snap))
		if first {
			return s.storeFirstRead(ctx, tx, cur, scanID, rd, fr, by, upd)
		}
		if len(changes) == 0 {
			// The pins hold; what the scanner found beyond them (another
			// face for another protocol version, listings that differed,
			// what unpinned prompts say) is for reviewers to see.
			if err := s.scanFindings(ctx, tx, cur.ID, scanID, live.list, snap); err != nil {
				return err
			}
			return upd.SetOutcome(string(states.OutcomeMatch)).Exec(ctx)
		}
		ev, err := s.sameOpenDrift(ctx, tx, cur, ap.spec, live.pins, liveAuth)
		if err != nil {
			return err
		}
		if ev != nil { // the server still serves what the open event recorded
			return upd.SetOutcome(string(states.OutcomeDrift)).SetDriftEventID(ev.ID).Exec(ctx)
		}
		if ev, err = s.recordDrift(ctx, tx, cur, scanID, changes); err != nil {
			return err
		}
		if err := upd.SetOutcome(string(states.OutcomeDrift)).SetDriftEventID(ev.ID).Exec(ctx); err != nil {
			return err
		}
		if err := s.scanFindings(ctx, tx, cur.ID, scanID, live.list, snap); err != nil {
			return err
		}
		return s.quarantineForDrift(ctx, tx, cur, ev)
	})
}

func (s *core) lockVersionByID(ctx context.Context, tx *ent.Tx, id int) (*ent.Version, error) {
	q := tx.Version.Query().Where(version.ID(id)).WithServer()
	if s.store.RowLocks() {
		q = q.ForUpdate()
	}
	return q.Only(ctx)
}

func (s *Scans) recordDrift(ctx context.Context, tx *ent.Tx, v *ent.Version, scanID int, changes []diffreview.Change) (*ent.DriftEvent, error) {
	action := diffreview.Verdict(changes)
	status := states.DriftOpen
	if action != diffreview.ActionQuarantine {
		status = states.DriftWarned
	}
	stored := storedChanges(changes)
	return tx.DriftEvent.Create().SetVersionID(v.ID).SetScanID(scanID).SetPinRevision(v.PinRevision).
		SetAction(string(action)).SetChanges(stored).SetStatus(string(status)).SetCreatedAt(s.now()).Save(ctx)
}

// storedChanges is how drift changes are kept (and shown): the diffs go
// into Detail.
func storedChanges(changes []diffreview.Change) []schema.DriftChange {
	stored := make([]schema.DriftChange, len(changes))
	for i, c := range changes {
		detail, _ := json.Marshal(struct {
			Words       []diffreview.Segment          `json:"words,omitempty"`
			Schema      []diffreview.SchemaChange     `json:"schema,omitempty"`
			Annotations []diffreview.AnnotationChange `json:"annotations,omitempty"`
		}{c.Words, c.Schema, c.Annotations})
		stored[i] = schema.DriftChange{Class: string(c.Class), Severity: string(c.Severity), Action: string(c.Action), Tool: c.Tool,
			Prompt: c.Prompt, Resource: c.Resource, Pointer: c.Pointer, Before: c.Before, After: c.After, Message: c.Message, Detail: detail}
	}
	return stored
}

// quarantineForDrift takes an approved version out of discovery at once
// when its drift calls for it. Warn-only drift never changes state.
func (s *Scans) quarantineForDrift(ctx context.Context, tx *ent.Tx, v *ent.Version, ev *ent.DriftEvent) error {
	if ev.Action != string(diffreview.ActionQuarantine) || v.State != version.StateApproved {
		return nil
	}
	subject := subjectOf(v.Edges.Server.Name, v.Version)
	reason := fmt.Sprintf("drift event %d: %s", ev.ID, driftSummary(ev.Changes))
	err := tx.Version.UpdateOneID(v.ID).SetState(version.StateQuarantined).SetStateReason(reason).
		SetStateChangedAt(s.now()).SetQuarantineKind(string(states.QuarantineDrift)).SetQuarantineDriftID(ev.ID).Exec(ctx)
	if err != nil {
		return err
	}
	err = tx.ReviewDecision.Create().SetVersionID(v.ID).SetAction("quarantine").SetFromState(string(v.State)).
		SetToState(string(version.StateQuarantined)).SetActor(scannerActor).SetReason(reason).SetCreatedAt(s.now()).Exec(ctx)
	if err != nil {
		return err
	}
	err = s.appendAudit(ctx, tx, AuditRecord{Actor: scannerActor, Action: "version.quarantine", Subject: subject,
		Before: string(v.State), After: string(version.StateQuarantined), Reason: reason,
		Details: fmt.Sprintf("drift_event=%d", ev.ID)})
	if err == nil {
		s.metrics.quarantined(states.QuarantineDrift)
	}
	return err
}

// driftSummary names the classes of a drift event, e.g.
// "description_changed (get_forecast)".
func driftSummary(cs []schema.DriftChange) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		p := c.Class
		if subject := cmp.Or(c.Tool, c.Prompt, c.Resource); subject != "" {
			p += " (" + subject + ")"
		}
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

func pinRevisionIs(versionID, rev int) []predicate.PinRevision {
	return []predicate.PinRevision{pinrevision.VersionID(versionID), pinrevision.Revision(rev)}
}

func itoa(n int) string { return strconv.Itoa(n) }

// sameOpenDrift returns the open drift event behind a drift quarantine when
// the new scan saw exactly what that event's scan saw, so repeated scans of
// a quarantined server do not pile up identical events.
func (s *Scans) sameOpenDrift(ctx context.Context, tx *ent.Tx, v *ent.Version, spec string, p pin.PinsV2, auth []byte) (*ent.DriftEvent, error) {
	if v.QuarantineDriftID == nil {
		return nil, nil
	}
	ev, err := tx.DriftEvent.Get(ctx, *v.QuarantineDriftID)
	if err != nil || states.DriftStatus(ev.Status) != states.DriftOpen {
		return nil, err
	}
	prev, err := tx.Scan.Get(ctx, ev.ScanID)
	if err != nil {
		return nil, err
	}
	same := prev.ToolDefinitionHash == p.ToolDefinitionHash && prev.SchemaHash == p.SchemaHash && prev.InstructionsHash == p.InstructionsHash &&
		bytes.Equal(prev.Auth, auth)
	if spec == pin.SpecVersionV2 {
		same = same && prev.PromptsHash == p.PromptsHash && prev.ResourcesHash == p.ResourcesHash
	}
	if same {
		return ev, nil
	}
	return nil, nil
}

// protocolVersions are the versions a scan read the server over, the
// primary first.
func protocolVersions(snap *livescan.Snapshot) []string {
	out := make([]string, len(snap.Readings))
	for i, r := range snap.Readings {
		out[i] = r.ProtocolVersion
	}
	return out
}

// readingRecord is what a scan row keeps of each reading: the raw answers.
type readingRecord struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Result          json.RawMessage `json:"result"`
	ToolsFile       json.RawMessage `json:"toolsFile"`
}

// readingsRecord is the JSON of the scan's readings (nil when none).
func readingsRecord(snap *livescan.Snapshot) []byte {
	if len(snap.Readings) == 0 {
		return nil
	}
	rs := make([]readingRecord, len(snap.Readings))
	for i, r := range snap.Readings {
		rs[i] = readingRecord{ProtocolVersion: r.ProtocolVersion, Result: r.Result, ToolsFile: r.Listings[0].ToolsFile}
	}
	out, err := json.Marshal(rs)
	if err != nil { // raw values the scanner read strictly
		return nil
	}
	return out
}
