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
	// Tool names the tool concerned; "" for instructions, serverInfo,
	// prompts and resources.
	Tool string `json:"tool,omitempty"`
	// Prompt names the prompt concerned (DriftV2 only).
	Prompt string `json:"prompt,omitempty"`
	// Resource is the uri of the resource, or the uriTemplate of the
	// resource template, concerned (DriftV2 only).
	Resource string `json:"resource,omitempty"`
	// Pointer is an RFC 6901 pointer into the raw JSON of the tool, prompt
	// or resource ("" for a whole one), or /instructions, or /serverInfo/…
	// in the initialize result.
	Pointer string `json:"pointer,omitempty"`
	// Before and After show the values on each side, for reading: the
	// text of strings, compact canonical JSON of anything else, the text
	// the model reads for prompt messages (see Change.Words), with hidden
	// characters made visible (see Visible); empty when absent. The exact
	// values are in the snapshots compared.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Message says what changed in a sentence; for prompts and resources
	// it names the prompt or resource first.
	Message string `json:"message"`
	// Riskier marks annotation changes in the dangerous direction.
	Riskier bool `json:"riskier,omitempty"`
	// Words is the word diff of a description, title or instructions, or
	// of the text of a prompt's messages: one line a message, "role: "
	// first, with placeholders such as [image] for content that is not
	// text.
	Words []Segment `json:"words,omitempty"`
	// Schema is the structural diff of an inputSchema, outputSchema,
	// serverInfo, a prompt's arguments or messages; its pointers are
	// relative to the member compared.
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
// absent member differs from "". Prompts and resources are ignored (pin
// v1 does not cover them; see DriftV2). Changes come sorted: instructions
// and serverInfo first, then by tool, class and pointer.
func (p Policy) Drift(approved, live *pin.ToolsList, approvedServerInfo, liveServerInfo []byte) []Change {
	return p.rated(driftV1(orEmpty(approved), orEmpty(live), approvedServerInfo, liveServerInfo))
}

// DriftV2 returns what Drift returns plus the differences of prompts,
// resources and resource templates, which pin v2 covers, rated under p.
// Each is compared by name, uri or uriTemplate through the pin v2
// projection in canonical form: prompts by name, title, description,
// arguments and messages; resources by name, title, description and
// mimeType; so member order, white space and number spelling never drift,
// and size, annotations, icons, _meta and other members are ignored.
// Prompt arguments are compared by name where every argument is an object
// with a distinct string name. Changes come sorted: instructions and
// serverInfo first, then tools, prompts and resources, each by name, uri
// or uriTemplate, class and pointer.
func (p Policy) DriftV2(approved, live *pin.ToolsList, approvedServerInfo, liveServerInfo []byte) []Change {
	a, b := orEmpty(approved), orEmpty(live)
	cs := driftV1(a, b, approvedServerInfo, liveServerInfo)
	cs = append(cs, promptsDrift(a.Prompts, b.Prompts)...)
	cs = append(cs, resourcesDrift(a, b)...)
	return p.rated(cs)
}

// driftV1 lists the unrated changes of what pin v1 covers.
func driftV1(a, b *pin.ToolsList, approvedServerInfo, liveServerInfo []byte) []Change {
	cs := instructionsDrift(a.Instructions, b.Instructions)
	cs = append(cs, serverInfoDrift(approvedServerInfo, liveServerInfo)...)
	return append(cs, toolsDrift(a.Tools, b.Tools)...)
}

// rated rates cs under p and sorts them.
func (p Policy) rated(cs []Change) []Change {
	for i := range cs {
		r := p.RuleFor(cs[i])
		cs[i].Severity, cs[i].Action = r.Severity, r.Action
	}
	slices.SortStableFunc(cs, compareChanges)
	return cs
}

// compareChanges orders changes for reviewers: those of the server as a
// whole, then tools, prompts and resources; each by name (uri), class and
// pointer.
func compareChanges(a, b Change) int {
	return cmp.Or(
		cmp.Compare(subjectRank(a), subjectRank(b)),
		cmp.Compare(a.Tool, b.Tool),
		cmp.Compare(a.Prompt, b.Prompt),
		cmp.Compare(a.Resource, b.Resource),
		cmp.Compare(slices.Index(Classes, a.Class), slices.Index(Classes, b.Class)),
		cmp.Compare(a.Pointer, b.Pointer),
	)
}

// subjectRank orders what a change is about, by its class: the server
// (0), a tool (1), a prompt (2), a resource or resource template (3).
func subjectRank(c Change) int {
	switch c.Class {
	case ClassInstructionsChanged, ClassServerInfoChanged, ClassAuthChanged:
		return 0
	case ClassPromptAdded, ClassPromptRemoved, ClassPromptDescriptionChanged, ClassPromptArgumentsChanged, ClassPromptMessagesChanged:
		return 2
	case ClassResourceAdded, ClassResourceRemoved, ClassResourceChanged:
		return 3
	}
	return 1
}

// orEmpty returns l, or an empty list for nil.
func orEmpty(l *pin.ToolsList) *pin.ToolsList {
	if l == nil {
		return &pin.ToolsList{}
	}
	return l
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

// unionNames returns the keys of both maps, sorted.
func unionNames[V any](a, b map[string]V) []string {
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
