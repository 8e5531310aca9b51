package diffreview

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/pin"
)

// Change is one difference between an approved snapshot and a live one.
type Change struct {
	Class Class `json:"class"`
	// Severity and Action come from the policy.
	Severity finding.Severity `json:"severity"`
	Action   Action           `json:"action"`
	// Tool names the tool concerned; "" for instructions and serverInfo.
	Tool string `json:"tool,omitempty"`
	// Pointer is an RFC 6901 pointer into the tool's raw JSON ("" for a
	// whole tool), or /instructions, or /serverInfo/… in the initialize
	// result.
	Pointer string `json:"pointer,omitempty"`
	// Before and After show the values on each side, for reading: the
	// text of strings, compact canonical JSON of anything else, with hidden
	// characters made visible (see Visible); empty when absent. The exact
	// values are in the snapshots compared.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Message says what changed in a sentence.
	Message string `json:"message"`
	// Riskier marks annotation changes in the dangerous direction.
	Riskier bool `json:"riskier,omitempty"`
	// Words is the word diff of a description, title or instructions.
	Words []Segment `json:"words,omitempty"`
	// Schema is the structural diff of an inputSchema, outputSchema or
	// serverInfo.
	Schema []SchemaChange `json:"schema,omitempty"`
	// Annotations is the member diff of annotations.
	Annotations []AnnotationChange `json:"annotations,omitempty"`
}

// Drift classifies the differences between an approved tools list and a
// live one under DefaultPolicy. serverInfo values are the raw JSON of the
// initialize result's serverInfo (nil when unknown). See Policy.Drift.
func Drift(approved, live *pin.ToolsList, approvedServerInfo, liveServerInfo []byte) []Change {
	return DefaultPolicy().Drift(approved, live, approvedServerInfo, liveServerInfo)
}

// Drift classifies the differences between approved and live and rates
// them under p. Tools are compared by name through the pin projection
// (name, title, description, inputSchema, outputSchema, annotations) in
// canonical form, so key order, white space and number spelling never
// drift, and icons, _meta and execution are ignored; a removed and an
// added tool that read alike are one renamed tool. Instructions compare like the instructions pin: an
// absent member differs from "". Changes come sorted: instructions and
// serverInfo first, then by tool, class and pointer.
func (p Policy) Drift(approved, live *pin.ToolsList, approvedServerInfo, liveServerInfo []byte) []Change {
	cs := instructionsDrift(instructionsOf(approved), instructionsOf(live))
	cs = append(cs, serverInfoDrift(approvedServerInfo, liveServerInfo)...)
	cs = append(cs, toolsDrift(toolsOf(approved), toolsOf(live))...)
	for i := range cs {
		r := p.RuleFor(cs[i])
		cs[i].Severity, cs[i].Action = r.Severity, r.Action
	}
	slices.SortStableFunc(cs, compareChanges)
	return cs
}

// compareChanges orders changes for reviewers.
func compareChanges(a, b Change) int {
	return cmp.Or(
		cmp.Compare(a.Tool, b.Tool),
		cmp.Compare(slices.Index(Classes, a.Class), slices.Index(Classes, b.Class)),
		cmp.Compare(a.Pointer, b.Pointer),
	)
}

func instructionsOf(l *pin.ToolsList) *string {
	if l == nil {
		return nil
	}
	return l.Instructions
}

func toolsOf(l *pin.ToolsList) []pin.Tool {
	if l == nil {
		return nil
	}
	return l.Tools
}

// instructionsDrift compares server instructions.
func instructionsDrift(a, b *string) []Change {
	switch {
	case a == nil && b == nil, a != nil && b != nil && *a == *b:
		return nil
	case a == nil:
		return []Change{{Class: ClassInstructionsChanged, Pointer: instructionsPointer, After: Visible(*b),
			Message: "instructions added", Words: DescriptionDiff("", *b)}}
	case b == nil:
		return []Change{{Class: ClassInstructionsChanged, Pointer: instructionsPointer, Before: Visible(*a),
			Message: "instructions removed", Words: DescriptionDiff(*a, "")}}
	}
	return []Change{{Class: ClassInstructionsChanged, Pointer: instructionsPointer, Before: Visible(*a), After: Visible(*b),
		Message: "instructions changed", Words: DescriptionDiff(*a, *b)}}
}

// serverInfoDrift reports each structural change of serverInfo.
func serverInfoDrift(a, b []byte) []Change {
	var out []Change
	for _, sc := range SchemaDiff(a, b) {
		out = append(out, Change{Class: ClassServerInfoChanged, Pointer: "/serverInfo" + sc.Pointer,
			Before: sc.Before, After: sc.After, Schema: []SchemaChange{sc},
			Message: "serverInfo" + sc.Pointer + " " + string(sc.Op)})
	}
	return out
}

// toolsDrift compares the tools of two lists by name. A removed tool and
// an added one that read alike (see pairRenames) are one renamed tool; an
// added tool whose name looks like one that stays is a lookalike.
func toolsDrift(a, b []pin.Tool) []Change {
	before, after := projectAll(a), projectAll(b)
	var out []Change
	var added, removed []string
	for _, name := range unionNames(before, after) {
		pa, inA := before[name]
		pb, inB := after[name]
		switch {
		case !inA:
			added = append(added, name)
		case !inB:
			removed = append(removed, name)
		default:
			out = append(out, compareTools(name, pa, pb)...)
		}
	}
	renames := pairRenames(removed, added, before, after)
	for _, r := range renames {
		out = append(out, renameChange(r, before, after))
	}
	for _, name := range removed {
		if !slices.ContainsFunc(renames, func(r renamed) bool { return r.from == name }) {
			out = append(out, Change{Class: ClassToolRemoved, Tool: name, Before: Visible(before[name].text()), Message: "tool removed"})
		}
	}
	for _, name := range added {
		if slices.ContainsFunc(renames, func(r renamed) bool { return r.to == name }) {
			continue
		}
		msg := "tool added"
		for old := range before {
			if _, stays := after[old]; stays && lookalikeKey(old) == lookalikeKey(name) {
				msg = fmt.Sprintf("tool added beside approved tool %q, with a name that differs only by letter case, look-alike or hidden characters (%s)",
					old, Visible(name))
			}
		}
		out = append(out, Change{Class: ClassToolAdded, Tool: name, After: Visible(after[name].text()), Message: msg})
	}
	return out
}

// unionNames returns the tool names of both sides, sorted.
func unionNames(a, b map[string]projection) []string {
	names := make([]string, 0, len(a)+len(b))
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}
