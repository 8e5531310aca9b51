package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/internal/ent"
	entfinding "github.com/mcpreg/mcpreg/internal/ent/finding"
	"github.com/mcpreg/mcpreg/internal/ent/pinrevision"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/tool"
	"github.com/mcpreg/mcpreg/internal/ent/toolsnapshot"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/pin"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// CompareSummaries summarizes the comparison of many versions with their
// default bases (as CompareVersions without a base) in a fixed number of
// queries, for lists such as the review queue: subject ("NAME@VERSION") →
// summary. Versions the caller may not read, or that do not exist, are
// left out.
func (s *Review) CompareSummaries(ctx context.Context, c *Caller, subjects []string) (map[string]*mcpregv1.ComparisonSummary, error) {
	want, names, err := subjectNames(subjects)
	if err != nil {
		return nil, err
	}
	out := map[string]*mcpregv1.ComparisonSummary{}
	for chunk := range slices.Chunk(names, 500) {
		vs, err := s.store.Client.Version.Query().Where(version.HasServerWith(server.NameIn(chunk...))).
			Select(version.FieldID, version.FieldServerID, version.FieldVersion, version.FieldState, version.FieldContract,
				version.FieldPinRevision).WithServer().All(ctx)
		if err != nil {
			return nil, err
		}
		byServer := map[int][]*ent.Version{}
		for _, v := range vs {
			byServer[v.ServerID] = append(byServer[v.ServerID], v)
		}
		var pairs []comparePair
		for _, v := range vs {
			srv := v.Edges.Server
			if !want[subjectOf(srv.Name, v.Version)] || !c.MayRead(srv.Namespace) {
				continue
			}
			pairs = append(pairs, comparePair{base: pickBase(byServer[v.ServerID], v.ID, v.Version), target: v,
				out: &mcpregv1.VersionComparison{Name: srv.Name, Version: v.Version, BaseSource: BaseDefault}})
		}
		cs, err := s.compareAll(ctx, pairs)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			out[subjectOf(c.GetName(), c.GetVersion())] = c.GetSummary()
		}
	}
	return out, nil
}

// subjectNames checks NAME@VERSION subjects and returns them as a set,
// with the server names they mention, each once.
func subjectNames(subjects []string) (map[string]bool, []string, error) {
	want := map[string]bool{}
	var names []string
	for _, sub := range subjects {
		name, _, ok := strings.Cut(sub, "@")
		if !ok || !serverNameRE.MatchString(name) {
			return nil, nil, invalidf("subject %q: want NAME@VERSION", sub)
		}
		if !want[sub] && !slices.Contains(names, name) {
			names = append(names, name)
		}
		want[sub] = true
	}
	return want, names, nil
}

// pinnedTools loads the pinned tools list of each version in three
// queries: the pin revisions, their snapshots and the snapshots' tools.
func (s *core) pinnedTools(ctx context.Context, vs []*ent.Version) (map[int]*pin.ToolsList, error) {
	out := map[int]*pin.ToolsList{}
	if len(vs) == 0 {
		return out, nil
	}
	ids, current := make([]int, len(vs)), map[int]int{}
	for i, v := range vs {
		ids[i], current[v.ID] = v.ID, v.PinRevision
	}
	prs, err := s.store.Client.PinRevision.Query().Where(pinrevision.VersionIDIn(ids...)).
		Select(pinrevision.FieldVersionID, pinrevision.FieldRevision, pinrevision.FieldSnapshotID).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("pin revisions: %w", err)
	}
	versionOf := map[int][]int{} // snapshot → versions pinned to it
	var snapIDs []int
	for _, pr := range prs {
		if current[pr.VersionID] == pr.Revision {
			versionOf[pr.SnapshotID] = append(versionOf[pr.SnapshotID], pr.VersionID)
			snapIDs = append(snapIDs, pr.SnapshotID)
		}
	}
	snaps, err := s.store.Client.ToolSnapshot.Query().Where(toolsnapshot.IDIn(snapIDs...)).
		Select(toolsnapshot.FieldID, toolsnapshot.FieldInstructions).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("snapshots: %w", err)
	}
	lists := map[int]*pin.ToolsList{}
	for _, sn := range snaps {
		lists[sn.ID] = &pin.ToolsList{Instructions: sn.Instructions, Tools: []pin.Tool{}}
	}
	ts, err := s.store.Client.Tool.Query().Where(tool.SnapshotIDIn(snapIDs...)).
		Order(ent.Asc(tool.FieldSnapshotID), ent.Asc(tool.FieldPosition)).
		Select(tool.FieldSnapshotID, tool.FieldName, tool.FieldRaw).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	for _, t := range ts {
		if l := lists[t.SnapshotID]; l != nil {
			l.Tools = append(l.Tools, pin.Tool{Name: t.Name, Raw: t.Raw})
		}
	}
	for snap, l := range lists {
		for _, id := range versionOf[snap] {
			out[id] = l
		}
	}
	for _, v := range vs {
		if out[v.ID] == nil {
			return nil, fmt.Errorf("current pins of version %d: not found", v.ID)
		}
	}
	return out, nil
}

// findingsOf loads the current findings of versions (not those a resolved
// drift made history) in one query, by version.
func (s *core) findingsOf(ctx context.Context, vs []*ent.Version) (map[int][]*ent.Finding, error) {
	out := map[int][]*ent.Finding{}
	if len(vs) == 0 {
		return out, nil
	}
	ids := make([]int, len(vs))
	for i, v := range vs {
		ids[i] = v.ID
	}
	fs, err := s.store.Client.Finding.Query().Where(entfinding.VersionIDIn(ids...), entfinding.ResolvedAtIsNil()).
		Order(ent.Asc(entfinding.FieldID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("findings: %w", err)
	}
	for _, f := range fs {
		out[f.VersionID] = append(out[f.VersionID], f)
	}
	return out, nil
}
