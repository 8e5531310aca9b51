package registry

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/driftevent"
	"github.com/mcpreg/mcpreg/internal/ent/predicate"
	"github.com/mcpreg/mcpreg/internal/ent/scan"
	"github.com/mcpreg/mcpreg/internal/ent/schema"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/states"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func scanProto(sc *ent.Scan, name, ver string) *mcpregv1.Scan {
	out := &mcpregv1.Scan{Id: int64(sc.ID), Name: name, Version: ver, Trigger: sc.Trigger, RequestedBy: sc.RequestedBy,
		StartedAt: ts(sc.StartedAt), FinishedAt: tsPtr(sc.FinishedAt), Outcome: sc.Outcome, Error: sc.Error,
		ErrorKind: sc.ErrorKind, ToolDefinitionHash: sc.ToolDefinitionHash, SchemaHash: sc.SchemaHash,
		InstructionsHash: sc.InstructionsHash, Replica: sc.Replica, ArtifactDigest: sc.ArtifactDigest, DigestSource: sc.DigestSource,
		ProtocolVersions: sc.ProtocolVersions}
	if sc.DriftEventID != nil {
		out.DriftEventId = int64(*sc.DriftEventID)
	}
	return out
}

func driftProto(ev *ent.DriftEvent, name, ver string) *mcpregv1.DriftEvent {
	out := &mcpregv1.DriftEvent{Id: int64(ev.ID), Name: name, Version: ver, ScanId: int64(ev.ScanID),
		PinRevision: int32(ev.PinRevision), Action: ev.Action, Status: ev.Status, CreatedAt: ts(ev.CreatedAt),
		ResolvedBy: ev.ResolvedBy, ResolvedAt: tsPtr(ev.ResolvedAt), ResolutionReason: ev.ResolutionReason}
	for _, c := range ev.Changes {
		out.Changes = append(out.Changes, driftChangeProto(c))
	}
	return out
}

func driftChangeProto(c schema.DriftChange) *mcpregv1.DriftChange {
	out := &mcpregv1.DriftChange{Class: c.Class, Severity: c.Severity, Action: c.Action, Tool: c.Tool,
		Prompt: c.Prompt, Resource: c.Resource, Pointer: c.Pointer, Before: c.Before, After: c.After, Message: c.Message}
	var d struct {
		Words       []diffreview.Segment          `json:"words"`
		Schema      []diffreview.SchemaChange     `json:"schema"`
		Annotations []diffreview.AnnotationChange `json:"annotations"`
	}
	if json.Unmarshal(c.Detail, &d) != nil {
		return out
	}
	out.Words, out.Schema, out.Annotations = detailProto(d.Words, d.Schema, d.Annotations)
	return out
}

// ListScans lists a version's scans, newest first.
func (s *Scans) ListScans(ctx context.Context, c *Caller, name, ver string, pg Page) ([]*mcpregv1.Scan, string, error) {
	if err := checkReadName(c, name); err != nil {
		return nil, "", err
	}
	v, err := s.findVersion(ctx, name, ver)
	if err != nil {
		return nil, "", err
	}
	size, before, err := s.intPageArgs(pg, "scans")
	if err != nil {
		return nil, "", err
	}
	q := s.store.Client.Scan.Query().Where(scan.VersionID(v.ID))
	if before > 0 {
		q = q.Where(scan.IDLT(int(before)))
	}
	rows, err := q.Order(ent.Desc(scan.FieldID)).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, "", err
	}
	rows, next := trimPage(rows, size, func(sc *ent.Scan) string { return encodeCursor("scans", strconv.Itoa(sc.ID)) })
	out := make([]*mcpregv1.Scan, len(rows))
	for i, sc := range rows {
		out[i] = scanProto(sc, name, ver)
	}
	return out, next, nil
}

// DriftFilter narrows drift event lists.
type DriftFilter struct {
	Name, Version string
	// Status is "" for every status.
	Status states.DriftStatus
}

// ListDriftEvents lists drift events newest first, within what the caller
// may read.
func (s *Scans) ListDriftEvents(ctx context.Context, c *Caller, f DriftFilter, pg Page) ([]*mcpregv1.DriftEvent, string, error) {
	size, before, err := s.intPageArgs(pg, "drift")
	if err != nil {
		return nil, "", err
	}
	ps, err := driftPredicates(c, f, before)
	if err != nil {
		return nil, "", err
	}
	rows, err := s.store.Client.DriftEvent.Query().Where(ps...).Order(ent.Desc(driftevent.FieldID)).Limit(size + 1).
		WithVersion(func(q *ent.VersionQuery) { q.WithServer() }).All(ctx)
	if err != nil {
		return nil, "", err
	}
	rows, next := trimPage(rows, size, func(e *ent.DriftEvent) string { return encodeCursor("drift", strconv.Itoa(e.ID)) })
	out := make([]*mcpregv1.DriftEvent, len(rows))
	for i, e := range rows {
		out[i] = driftProto(e, e.Edges.Version.Edges.Server.Name, e.Edges.Version.Version)
	}
	return out, next, nil
}

func driftPredicates(c *Caller, f DriftFilter, before int64) ([]predicate.DriftEvent, error) {
	var vps []predicate.Version
	if f.Name != "" {
		if err := checkReadName(c, f.Name); err != nil {
			return nil, err
		}
		vps = append(vps, serverIn(server.Name(f.Name)))
	}
	if f.Version != "" {
		vps = append(vps, version.Version(f.Version))
	}
	if !c.ReadsEverything() {
		vps = append(vps, serverIn(namespaceScope(c.Namespaces)))
	}
	var ps []predicate.DriftEvent
	if len(vps) > 0 {
		ps = append(ps, driftevent.HasVersionWith(vps...))
	}
	if f.Status != "" {
		if !f.Status.Valid() {
			return nil, invalidf("status %q: want one of %s", f.Status, states.Join(states.DriftStatuses()))
		}
		ps = append(ps, driftevent.Status(string(f.Status)))
	}
	if before > 0 {
		ps = append(ps, driftevent.IDLT(int(before)))
	}
	return ps, nil
}
