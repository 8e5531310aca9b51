package scan

import (
	"fmt"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/pin"
)

// KindListInconsistent is the finding for listings that differ within one
// scan: the server served different tools to the same client moments apart
// (a bait-and-switch).
const KindListInconsistent = "scan.list_inconsistent"

// summarize fills snap's first-listing fields and findings.
func (s *session) summarize(snap *Snapshot) {
	first := snap.Listings[0]
	snap.Tools, snap.ToolsFile, snap.Pins, snap.Pages = first.Tools, first.ToolsFile, first.Pins, first.Pages
	snap.Lists = len(snap.Listings)
	snap.Findings = inconsistencies(snap.Listings)
}

// inconsistencies reports each listing whose pins differ from the first.
func inconsistencies(ls []Listing) []finding.Finding {
	fs := []finding.Finding{}
	for i, l := range ls[1:] {
		if l.Pins.ToolDefinitionHash == ls[0].Pins.ToolDefinitionHash {
			continue
		}
		added, removed, changed := toolChanges(ls[0].Pins, l.Pins)
		f := finding.Finding{
			Kind:     KindListInconsistent,
			Severity: finding.High,
			Message: fmt.Sprintf("tools/list listing %d differs from listing 1 within one scan (tool definitions %s, then %s): the server may serve different tools to different calls",
				i+2, ls[0].Pins.ToolDefinitionHash, l.Pins.ToolDefinitionHash),
			Evidence: changeSummary(added, removed, changed),
		}
		if all := append(append(added, removed...), changed...); len(all) == 1 {
			f.Tool = all[0]
		}
		fs = append(fs, f)
	}
	return fs
}

// toolChanges compares two listings tool by tool.
func toolChanges(a, b pin.Pins) (added, removed, changed []string) {
	before := map[string]string{}
	for _, t := range a.Tools {
		before[t.Name] = t.Hash
	}
	for _, t := range b.Tools {
		h, ok := before[t.Name]
		switch {
		case !ok:
			added = append(added, t.Name)
		case h != t.Hash:
			changed = append(changed, t.Name)
		}
		delete(before, t.Name)
	}
	for _, t := range a.Tools {
		if _, gone := before[t.Name]; gone {
			removed = append(removed, t.Name)
		}
	}
	return added, removed, changed
}

func changeSummary(added, removed, changed []string) string {
	var parts []string
	for _, p := range []struct {
		what  string
		names []string
	}{{"changed", changed}, {"added", added}, {"removed", removed}} {
		if len(p.names) > 0 {
			parts = append(parts, fmt.Sprintf("%s: %q", p.what, p.names))
		}
	}
	return strings.Join(parts, "; ")
}
