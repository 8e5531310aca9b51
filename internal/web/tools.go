package web

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpreg/mcpreg/internal/contract"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// toolView is one tool of a snapshot as the review page shows it.
type toolView struct {
	Anchor      string
	Name        string
	Title       *string
	Description *string
	// Schemas and annotations, indented JSON in the order received.
	InputSchema, OutputSchema, Annotations string
	// Extra holds the members shown but not pinned (icons, _meta, ...).
	Extra    string
	Hash     string
	Risk     *contract.Tool
	Findings []*mcpregv1.Finding
	Worst    string
	// Flags maps a top-level member ("description", "inputSchema", ...) to
	// the highest severity of the findings pointing into it.
	Flags map[string]string
}

// pinnedMembers are the members the pin covers (docs/pin-spec.md).
var pinnedMembers = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// toolViews builds the tools of a snapshot with their findings and the
// contract's per-tool rules.
func toolViews(tools []*mcpregv1.Tool, byTool map[string][]*mcpregv1.Finding, risk map[string]*contract.Tool) []toolView {
	out := make([]toolView, len(tools))
	for i, t := range tools {
		tv := parseTool(t.GetRawJson())
		tv.Anchor = "tool-" + strconv.Itoa(i+1)
		tv.Name, tv.Hash, tv.Risk = t.GetName(), t.GetHash(), risk[t.GetName()]
		tv.Findings = byTool[t.GetName()]
		tv.Flags = map[string]string{}
		for _, f := range tv.Findings {
			tv.Worst = worse(tv.Worst, f.GetSeverity())
			m := topMember(f.GetPointer())
			tv.Flags[m] = worse(tv.Flags[m], f.GetSeverity())
		}
		out[i] = tv
	}
	return out
}

// parseTool reads the members a reviewer reads from a tool's raw JSON
// (stored only after a strict decoder accepted it).
func parseTool(raw string) toolView {
	var members map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &members); err != nil {
		return toolView{Extra: raw}
	}
	tv := toolView{Title: stringMember(members, "title"), Description: stringMember(members, "description"),
		InputSchema: indent(members["inputSchema"]), OutputSchema: indent(members["outputSchema"]),
		Annotations: indent(members["annotations"])}
	tv.Extra = extraMembers(members)
	return tv
}

func stringMember(m map[string]json.RawMessage, key string) *string {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		s = string(raw) // not a string: show the JSON
	}
	return &s
}

// extraMembers shows the members outside the pin, sorted by name.
func extraMembers(m map[string]json.RawMessage) string {
	var keys []string
	for k := range m {
		if !slices.Contains(pinnedMembers, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	slices.Sort(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(k)
		b.Write(name)
		b.WriteByte(':')
		b.Write(m[k])
	}
	b.WriteByte('}')
	return indent(b.Bytes())
}

// indent pretty-prints JSON, keeping member order; "" when absent.
func indent(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// topMember is the first reference token of a JSON pointer, unescaped.
func topMember(ptr string) string {
	tok, _, _ := strings.Cut(strings.TrimPrefix(ptr, "/"), "/")
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
}

func worse(a, b string) string {
	if severityRank(b) > severityRank(a) {
		return b
	}
	return a
}

// riskByTool indexes a normalised contract's per-tool rules.
func riskByTool(c *contract.Normalized) map[string]*contract.Tool {
	out := map[string]*contract.Tool{}
	if c == nil {
		return out
	}
	for i := range c.Tools {
		out[c.Tools[i].Name] = &c.Tools[i]
	}
	return out
}
