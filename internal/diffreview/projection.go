package diffreview

import (
	"bytes"
	"maps"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/pin"
)

// pinnedMembers are the tool members the pin covers (docs/pin-spec.md, "Pin
// specification"); only they can drift.
var pinnedMembers = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// Members of a prompt, a resource and a resource template that pin v2
// covers (docs/pin-spec.md, "Pin specification mcpreg-pin-v2").
var (
	promptMembers   = []string{"name", "title", "description", "arguments", "messages"}
	resourceMembers = []string{"uri", "name", "title", "description", "mimeType"}
	templateMembers = []string{"uriTemplate", "name", "title", "description", "mimeType"}
)

// projection is the pinned members of one tool, prompt, resource or
// resource template in canonical form.
type projection struct {
	members map[string]jsontext.Value
	raw     []byte // the object as received, when it could not be read
}

// project reads the members keep of a raw JSON object, such as
// pinnedMembers of a tool; nil keeps every member.
func project(raw []byte, keep []string) projection {
	v, ok := canonicalOrAbsent(raw)
	if !ok || v == nil || v.Kind() != '{' {
		return projection{raw: raw}
	}
	m := map[string]jsontext.Value{}
	for _, mem := range members(v) {
		if keep == nil || slices.Contains(keep, mem.name) {
			m[mem.name] = mem.value
		}
	}
	return projection{members: m}
}

// projectAll projects tools by name; the first of two same-named tools
// wins (pin rejects such lists).
func projectAll(tools []pin.Tool) map[string]projection {
	return projectByKey(tools, pinnedMembers, func(t pin.Tool) (string, []byte) { return t.Name, t.Raw })
}

// projectByKey projects items onto keep by the key parts returns; the
// first of two items with one key wins (pin rejects such lists).
func projectByKey[T any](items []T, keep []string, parts func(T) (key string, raw []byte)) map[string]projection {
	out := make(map[string]projection, len(items))
	for _, it := range items {
		key, raw := parts(it)
		if _, dup := out[key]; !dup {
			out[key] = project(raw, keep)
		}
	}
	return out
}

// text returns the canonical JSON of the projection (or the raw object).
func (p projection) text() string {
	if p.members == nil {
		return string(p.raw)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for _, name := range slices.Sorted(maps.Keys(p.members)) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		q, _ := jsontext.AppendQuote(nil, name)
		b.Write(q)
		b.WriteByte(':')
		b.Write(p.members[name])
	}
	b.WriteByte('}')
	return string(canonical(b.Bytes()))
}

// compareTools lists the changes between two versions of one tool.
func compareTools(name string, a, b projection) []Change {
	out, unreadable := unreadableChange(ClassSchemaChanged, "tool", a, b)
	if !unreadable {
		out = append(out, textChange(ClassDescriptionChanged, "description", a, b)...)
		out = append(out, textChange(ClassTitleChanged, "title", a, b)...)
		out = append(out, schemaChange(ClassSchemaChanged, "inputSchema", a, b)...)
		out = append(out, schemaChange(ClassSchemaChanged, "outputSchema", a, b)...)
		out = append(out, annotationsChange(a, b)...)
	}
	for i := range out {
		out[i].Tool = name
	}
	return out
}

// unreadableChange reports whether a or b could not be read as an object
// (what names it: "tool", "prompt"…) and if so the change, of class, that
// compares them as text.
func unreadableChange(class Class, what string, a, b projection) ([]Change, bool) {
	switch {
	case a.members != nil && b.members != nil:
		return nil, false
	case a.members == nil && b.members == nil && bytes.Equal(a.raw, b.raw):
		return nil, true
	}
	return []Change{{Class: class, Before: Visible(a.text()), After: Visible(b.text()),
		Message: "the " + what + "'s JSON could not be read on one side; compared as text"}}, true
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
func textChange(class Class, member string, a, b projection) []Change {
	p, changed := pair(member, a, b)
	if !changed {
		return nil
	}
	before, after := textOf(p.before), textOf(p.after)
	return []Change{{Class: class, Pointer: "/" + escapePointer(member), Before: Visible(before), After: Visible(after),
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

// schemaChange reports a changed JSON value, such as an inputSchema or
// outputSchema, with a structural diff.
func schemaChange(class Class, member string, a, b projection) []Change {
	p, changed := pair(member, a, b)
	if !changed {
		return nil
	}
	return []Change{{Class: class, Pointer: "/" + escapePointer(member),
		Before: Visible(string(p.before)), After: Visible(string(p.after)), Message: member + " " + p.verb(),
		Schema: SchemaDiff(p.before, p.after)}}
}

// annotationsChange reports changed annotations, riskier or not.
func annotationsChange(a, b projection) []Change {
	p, changed := pair("annotations", a, b)
	if !changed {
		return nil
	}
	c := Change{Class: ClassAnnotationsChanged, Pointer: "/annotations",
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
