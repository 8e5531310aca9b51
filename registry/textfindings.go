package registry

import (
	"context"

	"github.com/mcpreg/mcpreg/diffreview"
	"github.com/mcpreg/mcpreg/ent"
	"github.com/mcpreg/mcpreg/ent/pinrevision"
	"github.com/mcpreg/mcpreg/ent/tool"
	"github.com/mcpreg/mcpreg/ent/toolsnapshot"
	"github.com/mcpreg/mcpreg/ent/version"
	"github.com/mcpreg/mcpreg/pin"
)

// textFindings are the poisoning indicators in a snapshot's model-visible
// text and its shadowing of tools on other approved servers.
func (s *Service) textFindings(ctx context.Context, tx *ent.Tx, serverID int, serverName string, tl *pin.ToolsList) ([]recorded, error) {
	var out []recorded
	for _, f := range diffreview.Poisoning(tl.Tools, tl.Instructions) {
		out = append(out, recorded{Finding: f, Source: SourceSubmission})
	}
	others, err := approvedTools(ctx, tx, serverID)
	if err != nil {
		return nil, err
	}
	cand := diffreview.ServerTools{Server: serverName, Tools: tl.Tools, Instructions: tl.Instructions}
	for _, f := range diffreview.Shadowing(cand, others) {
		out = append(out, recorded{Finding: f, Source: SourceSubmission})
	}
	return out, nil
}

// approvedTools returns the current tools of the highest approved version
// of every server but exclude, in four queries whatever the fleet size.
func approvedTools(ctx context.Context, tx *ent.Tx, exclude int) ([]diffreview.ServerTools, error) {
	vs, err := tx.Version.Query().Where(version.StateEQ(version.StateApproved), version.ServerIDNEQ(exclude)).
		WithServer().All(ctx)
	if err != nil || len(vs) == 0 {
		return nil, err
	}
	best := map[int]*ent.Version{}
	for _, v := range vs {
		if b, ok := best[v.ServerID]; !ok || higherVersion(v.Version, b.Version) {
			best[v.ServerID] = v
		}
	}
	snapOf, err := currentSnapshots(ctx, tx, best)
	if err != nil {
		return nil, err
	}
	return toolsBySnapshot(ctx, tx, snapOf)
}

// currentSnapshots maps each version's current snapshot id to the version.
func currentSnapshots(ctx context.Context, tx *ent.Tx, best map[int]*ent.Version) (map[int]*ent.Version, error) {
	ids := make([]int, 0, len(best))
	for _, v := range best {
		ids = append(ids, v.ID)
	}
	prs, err := tx.PinRevision.Query().Where(pinrevision.VersionIDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[int]*ent.Version{}
	for _, v := range best {
		byID[v.ID] = v
	}
	out := map[int]*ent.Version{}
	for _, pr := range prs {
		if v := byID[pr.VersionID]; v != nil && v.PinRevision == pr.Revision {
			out[pr.SnapshotID] = v
		}
	}
	return out, nil
}

func toolsBySnapshot(ctx context.Context, tx *ent.Tx, snapOf map[int]*ent.Version) ([]diffreview.ServerTools, error) {
	ids := make([]int, 0, len(snapOf))
	for id := range snapOf {
		ids = append(ids, id)
	}
	snaps, err := tx.ToolSnapshot.Query().Where(toolsnapshot.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	tools, err := tx.Tool.Query().Where(tool.SnapshotIDIn(ids...)).Order(ent.Asc(tool.FieldSnapshotID), ent.Asc(tool.FieldPosition)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := map[int]*diffreview.ServerTools{}
	for _, sn := range snaps {
		out[sn.ID] = &diffreview.ServerTools{Server: snapOf[sn.ID].Edges.Server.Name, Instructions: sn.Instructions}
	}
	for _, t := range tools {
		st := out[t.SnapshotID]
		st.Tools = append(st.Tools, pin.Tool{Name: t.Name, Raw: t.Raw})
	}
	list := make([]diffreview.ServerTools, 0, len(out))
	for _, st := range out {
		list = append(list, *st)
	}
	return list, nil
}
