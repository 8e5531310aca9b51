package pin

import (
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// projected are the members of a tool that tool_hash covers.
var projected = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// schemaMembers are the members of a tool that schema_hash covers.
var schemaMembers = []string{"name", "inputSchema", "outputSchema"}

// canonicalTool holds the JCS texts one tool contributes to the pins.
type canonicalTool struct {
	index      int // position in the list as received
	name       string
	projection []byte // JCS of the projection
	schema     []byte // JCS of {name, inputSchema, outputSchema}
}

// canonicalList holds every JCS text the pins of a tools list hash.
type canonicalList struct {
	tools        []canonicalTool // sorted by name, byte order
	instructions []byte          // JCS of the instructions string, or null
}

// canonicalJSON returns the RFC 8785 form of the valid JSON text v.
func canonicalJSON(v []byte) ([]byte, error) {
	c := jsontext.Value(slices.Clone(v))
	if err := c.Canonicalize(); err != nil {
		return nil, invalidf("", -1, "cannot canonicalize: %v", err)
	}
	return c, nil
}

// canonicalize prepares every tool of l and sorts them by name.
func canonicalize(l *ToolsList) (*canonicalList, error) {
	if l == nil {
		return nil, invalidf("", -1, "no tools list")
	}
	c := &canonicalList{instructions: canonicalInstructions(l.Instructions)}
	for i, t := range l.Tools {
		ct, err := canonicalToolAt(t, "/tools/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		ct.index = i
		c.tools = append(c.tools, ct)
	}
	slices.SortFunc(c.tools, func(a, b canonicalTool) int { return strings.Compare(a.name, b.name) })
	return c, c.checkUnique()
}

// canonicalToolAt prepares t and checks that t.Name matches its Raw bytes.
func canonicalToolAt(t Tool, ptr string) (canonicalTool, error) {
	ct, err := newCanonicalTool(t.Raw)
	if err != nil {
		return ct, rebase(err, ptr)
	}
	if ct.name != t.Name {
		return ct, invalidf(ptr+"/name", -1, "Tool.Name %q differs from the name %q in Raw", t.Name, ct.name)
	}
	return ct, nil
}

// checkUnique rejects two tools of the same name; tools must be sorted.
func (c *canonicalList) checkUnique() error {
	for i := 1; i < len(c.tools); i++ {
		a, b := c.tools[i-1], c.tools[i]
		if a.name == b.name {
			first, second := min(a.index, b.index), max(a.index, b.index)
			return invalidf("/tools/"+strconv.Itoa(second)+"/name", -1,
				"duplicate tool name %q (tools %d and %d)", a.name, first, second)
		}
	}
	return nil
}

// newCanonicalTool strictly reads one raw tool object and builds its JCS texts.
func newCanonicalTool(raw []byte) (canonicalTool, error) {
	if err := validate(raw, unlimited); err != nil {
		return canonicalTool{}, err
	}
	name, ms, err := toolMembers(raw)
	if err != nil {
		return canonicalTool{}, err
	}
	proj, err := canonicalJSON(subset(ms, projected))
	if err != nil {
		return canonicalTool{}, err
	}
	schema, err := canonicalJSON(subset(ms, schemaMembers))
	return canonicalTool{name: name, projection: proj, schema: schema}, err
}

// toolMembers returns the name and members of a validated tool object.
func toolMembers(raw []byte) (string, []member, error) {
	e, err := readElement(jsontext.Value(raw), toolsList, "", -1)
	return e.key, e.members, err
}

// subset builds a JSON object of the members of ms named in keep, in their
// original order and with their raw values; absent members stay absent.
func subset(ms []member, keep []string) []byte {
	n := 2
	for _, m := range ms {
		n += len(m.name) + len(m.value) + 4
	}
	out := append(make([]byte, 0, n), '{')
	for _, m := range ms {
		if !slices.Contains(keep, m.name) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out, _ = jsontext.AppendQuote(out, m.name)
		out = append(out, ':')
		out = append(out, m.value...)
	}
	return append(out, '}')
}

// canonicalInstructions returns JCS of the instructions string, or null.
// Invalid UTF-8 in s is replaced by U+FFFD, as a JSON decoder would.
func canonicalInstructions(s *string) []byte {
	if s == nil {
		return []byte("null")
	}
	q, _ := jsontext.AppendQuote(nil, *s)
	c, err := canonicalJSON(q)
	if err != nil {
		return q // unreachable: AppendQuote always yields a valid string
	}
	return c
}

// definitions returns JCS of the array of projections sorted by name.
func (c *canonicalList) definitions() []byte {
	return joinArray(c.tools, func(t canonicalTool) []byte { return t.projection })
}

// schemas returns JCS of the array of schema objects sorted by name.
func (c *canonicalList) schemas() []byte {
	return joinArray(c.tools, func(t canonicalTool) []byte { return t.schema })
}

// joinArray builds a JSON array of canonical elements; JCS of an array is
// its canonical elements joined by commas, so the result is canonical.
func joinArray[T any](items []T, part func(T) []byte) []byte {
	n := 2
	for _, it := range items {
		n += len(part(it)) + 1
	}
	out := append(make([]byte, 0, n), '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, part(it)...)
	}
	return append(out, ']')
}
