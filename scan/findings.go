package scan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/pin"
)

// KindListInconsistent is the finding for listings that differ within one
// scan: the server served different tools to the same client moments apart
// (a bait-and-switch).
const KindListInconsistent = "scan.list_inconsistent"

// KindProtocolVariance is the finding for a server whose tools,
// instructions, prompts, resources or resource templates differ by
// protocol version: it may show the scanner one face and clients another.
const KindProtocolVariance = "scan.protocol_variance"

// setReadings fills snap from its readings (the primary first) and finds
// what differs within and between them.
func (snap *Snapshot) setReadings(rs []Reading) {
	p := rs[0]
	snap.Readings = rs
	snap.ProtocolVersion, snap.ServerInfo, snap.InitializeResult = p.ProtocolVersion, p.ServerInfo, p.Result
	snap.Instructions, snap.InstructionsPresent, snap.instructionsJSON = p.Instructions, p.InstructionsPresent, p.instructionsJSON
	snap.Listings = p.Listings
	first := snap.Listings[0]
	snap.Tools, snap.ToolsFile, snap.Pins, snap.Pages = first.Tools, first.ToolsFile, first.Pins, first.Pages
	snap.Lists = len(snap.Listings)
	snap.Prompts, snap.Resources, snap.ResourceTemplates = p.Prompts, p.Resources, p.ResourceTemplates
	snap.Findings = []finding.Finding{}
	for _, r := range rs {
		snap.Findings = append(snap.Findings, inconsistencies(r.ProtocolVersion, r.Listings)...)
		snap.Findings = append(snap.Findings, promptInconsistencies(r)...)
	}
	for _, r := range rs[1:] {
		snap.Findings = append(snap.Findings, variance(p, r)...)
		snap.Findings = append(snap.Findings, catalogVariance(p, r)...)
	}
	if f, ok := serverInfoVariance(rs); ok {
		snap.Findings = append(snap.Findings, f)
	}
}

// KindServerInfoVariance is the finding for a server that introduced
// itself differently within one scan (serverInfo of its results).
const KindServerInfoVariance = "scan.server_info_variance"

// serverInfoVariance reports serverInfo values that differ across the
// scan's responses, over every reading.
func serverInfoVariance(rs []Reading) (finding.Finding, bool) {
	var all, seen []string // as received; canonical (JCS) forms
	for _, r := range rs {
		for _, info := range r.ServerInfos {
			if c := canonical(info); !slices.Contains(seen, string(c)) {
				seen, all = append(seen, string(c)), append(all, string(info))
			}
		}
	}
	if len(all) < 2 {
		return finding.Finding{}, false
	}
	return finding.Finding{Kind: KindServerInfoVariance, Severity: finding.Medium,
		Message:  fmt.Sprintf("the server introduced itself %d different ways within one scan (serverInfo): it may tell clients apart", len(all)),
		Evidence: strings.Join(all, " | ")}, true
}

// variance reports what b (another protocol version) served differently
// from the primary reading a.
func variance(a, b Reading) []finding.Finding {
	var fs []finding.Finding
	pa, pb := a.Listings[0].Pins, b.Listings[0].Pins
	if pa.ToolDefinitionHash != pb.ToolDefinitionHash {
		added, removed, changed := toolChanges(pa, pb)
		f := finding.Finding{Kind: KindProtocolVariance, Severity: finding.High,
			Message: fmt.Sprintf("the tools differ by protocol version: %s served tool definitions %s, %s served %s: the server may show the scanner one face and clients another",
				a.ProtocolVersion, pa.ToolDefinitionHash, b.ProtocolVersion, pb.ToolDefinitionHash),
			Evidence: changeSummary(added, removed, changed)}
		if all := append(append(added, removed...), changed...); len(all) == 1 {
			f.Tool = all[0]
		}
		fs = append(fs, f)
	}
	if pa.InstructionsHash != pb.InstructionsHash {
		fs = append(fs, finding.Finding{Kind: KindProtocolVariance, Severity: finding.High,
			Message: fmt.Sprintf("the instructions differ by protocol version: %s (initialize) and %s (server/discover) sent different instructions",
				a.ProtocolVersion, b.ProtocolVersion)})
	}
	return fs
}

// inconsistencies reports each listing of one reading whose pins differ
// from its first.
func inconsistencies(version string, ls []Listing) []finding.Finding {
	fs := []finding.Finding{}
	for i, l := range ls[1:] {
		if l.Pins.ToolDefinitionHash == ls[0].Pins.ToolDefinitionHash {
			continue
		}
		added, removed, changed := toolChanges(ls[0].Pins, l.Pins)
		f := finding.Finding{
			Kind:     KindListInconsistent,
			Severity: finding.High,
			Message: fmt.Sprintf("tools/list listing %d differs from listing 1 within one scan (%s; tool definitions %s, then %s): the server may serve different tools to different calls",
				i+2, version, ls[0].Pins.ToolDefinitionHash, l.Pins.ToolDefinitionHash),
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
