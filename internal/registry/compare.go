package registry

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/pin"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Where a comparison's base came from (VersionComparison.base_source).
const (
	BaseDefault = "default"
	BaseChosen  = "chosen"
	BaseNone    = "none"
)

// Tool statuses of a comparison (ToolComparison.status).
const (
	ToolChanged   = "changed"
	ToolAdded     = "added"
	ToolRemoved   = "removed"
	ToolUnchanged = "unchanged"
)

// Finding statuses and contract directions of a comparison.
const (
	FindingNew         = "new"
	FindingCarriedOver = "carried_over"
	ContractWidening   = "widening"
	ContractNarrowing  = "narrowing"
)

// CompareVersions compares name@ver with base, or, when base is empty,
// with the highest version below it that was approved and is not revoked
// (the base contract widenings use): tools added, removed and changed
// (word diffs of descriptions, schema changes by JSON pointer, annotation
// and title changes), instructions, contract widenings and narrowings, and
// which findings are new. A server with no such version answers
// first_version.
func (s *Review) CompareVersions(ctx context.Context, c *Caller, name, ver, base string) (*mcpregv1.VersionComparison, error) {
	if err := checkReadName(c, name); err != nil {
		return nil, err
	}
	target, err := s.findVersion(ctx, name, ver)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.VersionComparison{Name: name, Version: ver, BaseSource: BaseChosen}
	var b *ent.Version
	switch {
	case base == ver:
		return nil, invalidf("base %q is the version compared: choose another version of %s", base, name)
	case base != "":
		if b, err = s.findVersion(ctx, name, base); err != nil {
			return nil, fmt.Errorf("base: %w", err)
		}
	default:
		out.BaseSource = BaseDefault
		if b, err = baseVersion(ctx, s.store.Client, target.ServerID, target.ID, target.Version); err != nil {
			return nil, err
		}
	}
	cs, err := s.compareAll(ctx, []comparePair{{base: b, target: target, out: out}})
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// comparePair is one comparison to make: target with base (nil: none).
type comparePair struct {
	base, target *ent.Version
	out          *mcpregv1.VersionComparison
}

// compareAll makes comparisons in a fixed number of queries, whatever
// their number: the pinned tools of every version involved (three) and
// their findings (one).
func (s *Review) compareAll(ctx context.Context, pairs []comparePair) ([]*mcpregv1.VersionComparison, error) {
	var vs []*ent.Version
	for _, p := range pairs {
		if p.base != nil {
			vs = append(vs, p.base, p.target)
		}
	}
	tools, err := s.pinnedTools(ctx, vs)
	if err != nil {
		return nil, err
	}
	findings, err := s.findingsOf(ctx, vs)
	if err != nil {
		return nil, err
	}
	out := make([]*mcpregv1.VersionComparison, len(pairs))
	for i, p := range pairs {
		c := p.out
		out[i] = c
		if p.base == nil {
			c.BaseSource, c.FirstVersion = BaseNone, true
			c.Summary = &mcpregv1.ComparisonSummary{Text: "first version"}
			continue
		}
		c.Base = p.base.Version
		s.compareTools(tools[p.base.ID], tools[p.target.ID], c)
		if err := compareContracts(p.base, p.target, c); err != nil {
			return nil, err
		}
		compareFindings(findings[p.base.ID], findings[p.target.ID], c)
		c.Summary = summarize(c)
	}
	return out, nil
}

// compareTools fills the tools and instructions of a comparison from the
// pinned snapshots of both versions, classified as drift is.
func (s *Review) compareTools(bl, tl *pin.ToolsList, out *mcpregv1.VersionComparison) {
	byTool := map[string]*mcpregv1.ToolComparison{}
	for _, t := range append(slices.Clone(tl.Tools), bl.Tools...) {
		if _, ok := byTool[t.Name]; !ok {
			byTool[t.Name] = &mcpregv1.ToolComparison{Name: t.Name, Status: ToolUnchanged}
		}
	}
	for _, ch := range s.scans.driftPolicy().Drift(bl, tl, nil, nil) {
		ch.Action = ""
		if ch.Tool == "" {
			out.Instructions = append(out.Instructions, changeProto(ch))
			continue
		}
		tc := byTool[ch.Tool]
		switch ch.Class {
		case diffreview.ClassToolAdded:
			tc.Status = ToolAdded
		case diffreview.ClassToolRemoved:
			tc.Status = ToolRemoved
		default:
			tc.Status = ToolChanged
			tc.Changes = append(tc.Changes, changeProto(ch))
		}
	}
	for _, tc := range byTool {
		out.Tools = append(out.Tools, tc)
	}
	rank := []string{ToolChanged, ToolAdded, ToolRemoved, ToolUnchanged}
	slices.SortFunc(out.Tools, func(a, b *mcpregv1.ToolComparison) int {
		return cmp.Or(cmp.Compare(slices.Index(rank, a.Status), slices.Index(rank, b.Status)), strings.Compare(a.Name, b.Name))
	})
}

// compareContracts lists the widenings approval must acknowledge against
// this base and the narrowings.
func compareContracts(base, target *ent.Version, out *mcpregv1.VersionComparison) error {
	prev, err := contract.DecodeNormalized(base.Contract)
	if err != nil {
		return fmt.Errorf("stored contract of %s: %w", base.Version, err)
	}
	next, err := contract.DecodeNormalized(target.Contract)
	if err != nil {
		return fmt.Errorf("stored contract of %s: %w", target.Version, err)
	}
	for _, w := range contract.Widenings(prev, next) {
		out.Contract = append(out.Contract, &mcpregv1.ContractChange{Direction: ContractWidening, Id: w.ID, Kind: w.Kind,
			Tool: w.Tool, Pointer: w.Pointer, Message: w.Message})
	}
	for _, n := range contract.Narrowings(prev, next) {
		out.Contract = append(out.Contract, &mcpregv1.ContractChange{Direction: ContractNarrowing, Kind: n.Kind,
			Tool: n.Tool, Pointer: n.Pointer, Message: n.Message})
	}
	return nil
}

// compareFindings marks each finding of the target new or carried over:
// the base has one of the same kind, tool and JSON pointer. A carried-over
// finding whose evidence differs from every such finding of the base
// shows the base's evidence.
func compareFindings(base, target []*ent.Finding, out *mcpregv1.VersionComparison) {
	type key struct{ kind, tool, pointer string }
	evidence := map[key][]string{}
	for _, f := range base {
		k := key{f.Kind, f.Tool, f.Pointer}
		evidence[k] = append(evidence[k], f.Evidence)
	}
	for _, p := range findingsProto(target) {
		fc := &mcpregv1.FindingComparison{Status: FindingNew, Finding: p}
		if ev, ok := evidence[key{p.Kind, p.Tool, p.Pointer}]; ok {
			fc.Status = FindingCarriedOver
			if !slices.Contains(ev, p.Evidence) {
				fc.BaseEvidence = ev[0]
			}
		}
		out.Findings = append(out.Findings, fc)
	}
}

// summarize counts a comparison and says it in one line, e.g. "2 tools
// changed, 1 added; 3 new findings, 1 high".
func summarize(c *mcpregv1.VersionComparison) *mcpregv1.ComparisonSummary {
	sum := &mcpregv1.ComparisonSummary{InstructionsChanged: len(c.Instructions) > 0}
	for _, t := range c.Tools {
		switch t.Status {
		case ToolChanged:
			sum.ToolsChanged++
		case ToolAdded:
			sum.ToolsAdded++
		case ToolRemoved:
			sum.ToolsRemoved++
		default:
			sum.ToolsUnchanged++
		}
	}
	for _, ch := range c.Contract {
		if ch.Direction == ContractWidening {
			sum.ContractWidenings++
		} else {
			sum.ContractNarrowings++
		}
	}
	for _, f := range c.Findings {
		if f.Status == FindingCarriedOver {
			sum.CarriedOverFindings++
			continue
		}
		sum.NewFindings++
		switch finding.Severity(f.Finding.Severity) {
		case finding.Critical:
			sum.NewCritical++
		case finding.High:
			sum.NewHigh++
		}
	}
	sum.Text = summaryText(sum)
	return sum
}

func summaryText(s *mcpregv1.ComparisonSummary) string {
	var tools []string
	for _, p := range []struct {
		n    int32
		what string
	}{{s.ToolsChanged, "changed"}, {s.ToolsAdded, "added"}, {s.ToolsRemoved, "removed"}} {
		if p.n == 0 {
			continue
		}
		if len(tools) == 0 {
			tools = append(tools, fmt.Sprintf("%s %s", count(p.n, "tool"), p.what))
		} else {
			tools = append(tools, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	parts := []string{"no tool changes"}
	if len(tools) > 0 {
		parts[0] = strings.Join(tools, ", ")
	}
	if s.InstructionsChanged {
		parts = append(parts, "instructions changed")
	}
	if s.ContractWidenings > 0 {
		parts = append(parts, count(s.ContractWidenings, "contract widening"))
	}
	if s.ContractNarrowings > 0 {
		parts = append(parts, count(s.ContractNarrowings, "contract narrowing"))
	}
	findings := "no new findings"
	if s.NewFindings > 0 {
		findings = count(s.NewFindings, "new finding")
		if s.NewCritical > 0 {
			findings += fmt.Sprintf(", %d critical", s.NewCritical)
		}
		if s.NewHigh > 0 {
			findings += fmt.Sprintf(", %d high", s.NewHigh)
		}
	}
	return strings.Join(append(parts, findings), "; ")
}

// count says n things, in the plural unless n is 1.
func count(n int32, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// changeProto is a classified difference for the API.
func changeProto(c diffreview.Change) *mcpregv1.DriftChange {
	out := &mcpregv1.DriftChange{Class: string(c.Class), Severity: string(c.Severity), Action: string(c.Action), Tool: c.Tool,
		Pointer: c.Pointer, Before: c.Before, After: c.After, Message: c.Message}
	out.Words, out.Schema, out.Annotations = detailProto(c.Words, c.Schema, c.Annotations)
	return out
}

// detailProto is the word diff, schema diff and annotation diff of a
// change for the API.
func detailProto(words []diffreview.Segment, schema []diffreview.SchemaChange, anns []diffreview.AnnotationChange) (
	[]*mcpregv1.DiffSegment, []*mcpregv1.JsonChange, []*mcpregv1.JsonChange,
) {
	var ws []*mcpregv1.DiffSegment
	for _, w := range words {
		ws = append(ws, &mcpregv1.DiffSegment{Op: string(w.Op), Text: w.Text})
	}
	var ss []*mcpregv1.JsonChange
	for _, sc := range schema {
		ss = append(ss, &mcpregv1.JsonChange{Pointer: sc.Pointer, Op: string(sc.Op), Before: sc.Before, After: sc.After})
	}
	var as []*mcpregv1.JsonChange
	for _, a := range anns {
		as = append(as, &mcpregv1.JsonChange{Pointer: "/" + a.Name, Op: string(a.Op), Before: a.Before, After: a.After})
	}
	return ws, ss, as
}
