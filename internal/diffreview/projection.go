package diffreview

import (
	"bytes"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/pin"
)

// pinnedMembers are the tool members the pin covers (docs/pin-spec.md, "Pin
// specification"); only they can drift.
var pinnedMembers = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// projection is the pinned members of one tool in canonical form.
type projection struct {
	members map[string]jsontext.Value
	raw     []byte // the tool as received, when it could not be read
}

// project reads the pinned members of a raw tool.
func project(raw []byte) projection {
	v, ok := canonicalOrAbsent(raw)
	if !ok || v == nil || v.Kind() != '{' {
		return projection{raw: raw}
	}
	m := map[string]jsontext.Value{}
	for _, mem := range members(v) {
		if slices.Contains(pinnedMembers, mem.name) {
			m[mem.name] = mem.value
		}
	}
	return projection{members: m}
}

// projectAll projects tools by name; the first of two same-named tools
// wins (pin rejects such lists).
func projectAll(tools []pin.Tool) map[string]projection {
	out := make(map[string]projection, len(tools))
	for _, t := range tools {
		if _, dup := out[t.Name]; !dup {
			out[t.Name] = project(t.Raw)
		}
	}
	return out
}

// text returns the canonical JSON of the projection (or the raw tool).
func (p projection) text() string {
	if p.members == nil {
		return string(p.raw)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for _, name := range pinnedMembers {
		if v, ok := p.members[name]; ok {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			q, _ := jsontext.AppendQuote(nil, name)
			b.Write(q)
			b.WriteByte(':')
			b.Write(v)
		}
	}
	b.WriteByte('}')
	return string(canonical(b.Bytes()))
}

// compareTools lists the changes between two versions of one tool.
func compareTools(name string, a, b projection) []Change {
	if a.members == nil || b.members == nil {
		if bytes.Equal(a.raw, b.raw) && a.members == nil && b.members == nil {
			return nil
		}
		return []Change{{Class: ClassSchemaChanged, Tool: name, Before: Visible(a.text()), After: Visible(b.text()),
			Message: "the tool's JSON could not be read on one side; compared as text"}}
	}
	var out []Change
	out = append(out, textChange(ClassDescriptionChanged, name, "description", a, b)...)
	out = append(out, textChange(ClassTitleChanged, name, "title", a, b)...)
	out = append(out, schemaChange(name, "inputSchema", a, b)...)
	out = append(out, schemaChange(name, "outputSchema", a, b)...)
	return append(out, annotationsChange(name, a, b)...)
}

// memberPair is one member on both sides.
type memberPair struct {
	before, after jsontext.Value
	inA, inB      bool
}

// pair looks member up on both sides and reports whether it changed.
func pair(member string, a, b projection) (memberPair, bool) {
	var p memberPair
	p.before, p.inA = a.members[member]
	p.after, p.inB = b.members[member]
	return p, p.inA != p.inB || !bytes.Equal(p.before, p.after)
}

// verb says how a member changed.
func (p memberPair) verb() string {
	return string(opFor(p.inA, p.inB))
}

// textChange reports a changed description or title with a word diff.
func textChange(class Class, tool, member string, a, b projection) []Change {
	p, changed := pair(member, a, b)
	if !changed {
		return nil
	}
	before, after := textOf(p.before), textOf(p.after)
	return []Change{{Class: class, Tool: tool, Pointer: "/" + member, Before: Visible(before), After: Visible(after),
		Message: member + " " + p.verb(), Words: DescriptionDiff(before, after)}}
}

// textOf returns the text of a string value, the JSON of others, and ""
// for an absent one.
func textOf(v jsontext.Value) string {
	if v == nil {
		return ""
	}
	return stringValue(v)
}

// schemaChange reports a changed inputSchema or outputSchema.
func schemaChange(tool, member string, a, b projection) []Change {
	p, changed := pair(member, a, b)
	if !changed {
		return nil
	}
	return []Change{{Class: ClassSchemaChanged, Tool: tool, Pointer: "/" + member,
		Before: Visible(string(p.before)), After: Visible(string(p.after)), Message: member + " " + p.verb(),
		Schema: SchemaDiff(p.before, p.after)}}
}

// annotationsChange reports changed annotations, riskier or not.
func annotationsChange(tool string, a, b projection) []Change {
	p, changed := pair("annotations", a, b)
	if !changed {
		return nil
	}
	c := Change{Class: ClassAnnotationsChanged, Tool: tool, Pointer: "/annotations",
		Before: Visible(string(p.before)), After: Visible(string(p.after)), Message: "annotations " + p.verb(),
		Annotations: AnnotationDiff(p.before, p.after)}
	for _, ac := range c.Annotations {
		if ac.Riskier {
			c.Riskier = true
			c.Message += ": " + ac.Reason
			break
		}
	}
	return []Change{c}
}
