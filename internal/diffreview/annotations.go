package diffreview

import (
	"slices"

	"github.com/go-json-experiment/json/jsontext"
)

// AnnotationChange is one changed member of a tool's annotations.
type AnnotationChange struct {
	// Name is the annotation, e.g. "readOnlyHint"; "" stands for the
	// annotations value as a whole when it is not an object.
	Name string   `json:"name"`
	Op   SchemaOp `json:"op"`
	// Before and After are compact canonical JSON with hidden characters
	// made visible; empty when absent.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Riskier is set when the effective hint moved in the dangerous
	// direction; Reason then says how.
	Riskier bool   `json:"riskier,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// hintRule is a boolean hint with its MCP default and the value that is
// the safe one.
type hintRule struct {
	name       string
	byDefault  bool
	safe       bool
	riskReason string
}

// hintRules are the hints whose change can make a tool riskier. Per the
// MCP specification readOnlyHint defaults to false, destructiveHint and
// openWorldHint to true. idempotentHint turning false is not counted as
// riskier: it changes retry safety, not what the tool can reach.
var hintRules = []hintRule{
	{"readOnlyHint", false, true, "the tool is no longer declared read-only"},
	{"destructiveHint", true, false, "the tool is now declared (or defaults to) destructive"},
	{"openWorldHint", true, false, "the tool now declares (or defaults to) reaching an open world"},
}

// AnnotationDiff compares two annotations objects member by member (empty
// input means absent) and marks changes that move a hint in the dangerous
// direction, counting absent hints at their MCP defaults: readOnlyHint
// true→false, destructiveHint false→true, openWorldHint false→true.
// When either side is present but not an object, the whole value is
// reported as one change with Name "".
func AnnotationDiff(before, after []byte) []AnnotationChange {
	a, okA := annotationMembers(before)
	b, okB := annotationMembers(after)
	if !okA || !okB {
		return wholeAnnotationChange(before, after, a, b)
	}
	var out []AnnotationChange
	for _, name := range unionKeys(a, b) {
		va, inA := a[name]
		vb, inB := b[name]
		if inA && inB && string(va) == string(vb) {
			continue
		}
		c := AnnotationChange{Name: name, Op: opFor(inA, inB), Before: Visible(string(va)), After: Visible(string(vb))}
		c.Riskier, c.Reason = riskier(name, a, b)
		out = append(out, c)
	}
	return out
}

// wholeAnnotationChange reports annotations that are not both objects.
func wholeAnnotationChange(before, after []byte, a, b map[string]jsontext.Value) []AnnotationChange {
	scs := SchemaDiff(before, after)
	if len(scs) == 0 {
		return nil
	}
	c := AnnotationChange{Op: SchemaChanged, Before: Visible(string(canonical(before))), After: Visible(string(canonical(after)))}
	if len(scs) == 1 && scs[0].Pointer == "" {
		c.Op = scs[0].Op
	}
	c.Riskier, c.Reason = riskier("", a, b)
	return []AnnotationChange{c}
}

// opFor names the operation for a member present in a, b or both.
func opFor(inA, inB bool) SchemaOp {
	switch {
	case !inA:
		return SchemaAdded
	case !inB:
		return SchemaRemoved
	}
	return SchemaChanged
}

// unionKeys returns the keys of a and b, sorted.
func unionKeys(a, b map[string]jsontext.Value) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// annotationMembers returns the canonical members of an annotations
// object, and false when raw is present but not an object.
func annotationMembers(raw []byte) (map[string]jsontext.Value, bool) {
	v, ok := canonicalOrAbsent(raw)
	if !ok || v != nil && v.Kind() != '{' {
		return nil, false
	}
	out := map[string]jsontext.Value{}
	for _, m := range members(v) {
		out[m.name] = m.value
	}
	return out, true
}

// riskier reports whether the hint name moved to its unsafe value. A
// whole-value change ("") is riskier if any hint moved.
func riskier(name string, a, b map[string]jsontext.Value) (bool, string) {
	for _, h := range hintRules {
		if name != "" && name != h.name {
			continue
		}
		if h.effective(a) == h.safe && h.effective(b) != h.safe {
			return true, h.riskReason
		}
	}
	return false, ""
}

// effective returns the hint's value, or its default when absent or not
// a boolean.
func (h hintRule) effective(m map[string]jsontext.Value) bool {
	switch string(m[h.name]) {
	case "true":
		return true
	case "false":
		return false
	}
	return h.byDefault
}
