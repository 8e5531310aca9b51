package registry

import (
	"context"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/pin"
)

// textFindings are the poisoning indicators in a snapshot's model-visible
// text (tools, instructions, prompts, resources), tool names that imitate the server's own approved tools (or each
// other), and its shadowing of tools on other approved servers. The other
// servers' tools come from the discovery index (the highest approved
// version of each server, every environment), so the cost of a
// submission does not grow with the fleet.
func (s *Discovery) textFindings(ctx context.Context, serverName string, tl *pin.ToolsList) ([]recorded, error) {
	var out []recorded
	for _, f := range diffreview.PoisoningModel(tl) {
		out = append(out, recorded{Finding: f, Source: SourceSubmission})
	}
	idx, err := s.discoveryIndex(ctx)
	if err != nil {
		return nil, err
	}
	var approved []string // the server's tools as approved (its highest approved version)
	if ds := idx.server(serverName); ds != nil && len(ds.versions) > 0 {
		approved = ds.versions[0].toolNames()
	}
	for _, f := range diffreview.LookalikeNames(approved, tl.Tools) {
		out = append(out, recorded{Finding: f, Source: SourceSubmission})
	}
	cand := diffreview.ServerTools{Server: serverName, Tools: tl.Tools, Instructions: tl.Instructions}
	for _, f := range idx.shadowIndex().Shadowing(cand) {
		out = append(out, recorded{Finding: f, Source: SourceSubmission})
	}
	return out, nil
}

// shadowIndex indexes the tool names of each server's highest approved
// version: built once, then carried to the next indexes (buildDelta).
func (idx *discoveryIndex) shadowIndex() *diffreview.Index {
	idx.shadowMu.Lock()
	defer idx.shadowMu.Unlock()
	if idx.shadow == nil {
		servers := make([]diffreview.ServerTools, 0, idx.servers.len())
		for ds := range idx.servers.all() {
			if len(ds.versions) == 0 {
				continue
			}
			st := diffreview.ServerTools{Server: ds.name}
			for _, name := range ds.versions[0].toolNames() {
				st.Tools = append(st.Tools, pin.Tool{Name: name})
			}
			servers = append(servers, st)
		}
		idx.shadow = diffreview.NewIndex(servers)
	}
	return idx.shadow
}

// shadowIfBuilt is the shadowing index if one was built, else nil.
func (idx *discoveryIndex) shadowIfBuilt() *diffreview.Index {
	idx.shadowMu.Lock()
	defer idx.shadowMu.Unlock()
	return idx.shadow
}

func (idx *discoveryIndex) setShadow(sh *diffreview.Index) {
	idx.shadowMu.Lock()
	defer idx.shadowMu.Unlock()
	idx.shadow = sh
}

// Warm builds the discovery index and its shadowing index now, so the
// first resolve or submission after a start does not pay for them (the
// service calls it when it starts; it is safe to call at any time).
func (s *Discovery) Warm(ctx context.Context) error {
	idx, err := s.discoveryIndex(ctx)
	if err != nil {
		return err
	}
	idx.shadowIndex()
	return nil
}
