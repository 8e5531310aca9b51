package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/pin"
)

// maxRelistPages bounds the pages of one re-listing the gate makes itself.
const maxRelistPages = 100

// toolFilter holds the pins of the approved version and which tools the
// session's latest listing passed.
type toolFilter struct {
	entry  discovery.Entry
	pinned map[string]string // tool name → pinned tool hash
	policy *callPolicy

	mu       sync.Mutex
	listed   bool
	passed   map[string]string // tool name → hash, as last listed
	withheld map[string]string // tool name → why, as last listed
	// defs are the definitions passed, by hash: what a call's arguments
	// are checked against.
	defs map[string]json.RawMessage
}

func newToolFilter(e discovery.Entry, policy *callPolicy) *toolFilter {
	f := &toolFilter{entry: e, pinned: map[string]string{}, policy: policy, passed: map[string]string{},
		withheld: map[string]string{}, defs: map[string]json.RawMessage{}}
	for _, t := range e.Pins.Tools {
		f.pinned[t.Name] = t.Hash
	}
	return f
}

// listing is what one tools/list page passed and withheld.
type listing struct {
	passed   map[string]string // name → hash
	withheld map[string]string // name → why
	// mismatched is set when a tool was withheld for not matching the
	// pins (not for the session's scopes): a report to the registry.
	mismatched *bool
}

// newListing is an empty listing.
func newListing() listing {
	return listing{passed: map[string]string{}, withheld: map[string]string{}, mismatched: new(bool)}
}

// filter returns result with only the tools that match their pins, each
// as the bytes received; members other than "tools" are kept as they
// came. A result that cannot be read passes no tool.
func (f *toolFilter) filter(result json.RawMessage) (json.RawMessage, listing, error) {
	l := newListing()
	members, err := objectMembers(result)
	if err != nil {
		return json.RawMessage(`{"tools":[]}`), l, fmt.Errorf("tools/list result: %w", err)
	}
	i := slices.IndexFunc(members, func(m member) bool { return m.name == "tools" })
	if i < 0 {
		return json.RawMessage(`{"tools":[]}`), l, fmt.Errorf(`tools/list result has no "tools"`)
	}
	if n := foldedLike(members, "tools"); n != "tools" {
		return json.RawMessage(`{"tools":[]}`), l, fmt.Errorf(`tools/list result has both "tools" and %q`, n)
	}
	tools, err := arrayElements(members[i].value)
	if err != nil {
		return json.RawMessage(`{"tools":[]}`), l, fmt.Errorf("tools/list result: tools: %w", err)
	}
	kept := f.judge(tools, l)
	if len(kept) == len(tools) {
		return result, l, nil
	}
	members[i].value = joinArray(kept)
	return joinObject(members), l, nil
}

// judge fills l with each tool's verdict and returns the tools that pass.
func (f *toolFilter) judge(tools []json.RawMessage, l listing) []json.RawMessage {
	names := make([]string, len(tools))
	count := map[string]int{}
	for i, raw := range tools {
		var t struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(raw, &t) // no name: never pinned, so withheld
		names[i] = t.Name
		count[t.Name]++
	}
	var kept []json.RawMessage
	for i, raw := range tools {
		name := names[i]
		hash, why := f.verdict(name, raw, count[name])
		if why != "" {
			l.withheld[name] = why
			*l.mismatched = true
			continue
		}
		if why := f.policy.scopeRefusal(name); why != "" {
			l.withheld[name] = why // not a mismatch: the session may not see it
			continue
		}
		l.passed[name] = hash
		kept = append(kept, raw)
		f.mu.Lock()
		f.defs[hash] = raw
		f.mu.Unlock()
	}
	return kept
}

// verdict is a listed tool's hash, or why it is withheld.
func (f *toolFilter) verdict(name string, raw json.RawMessage, listed int) (hash, why string) {
	pinned, ok := f.pinned[name]
	switch {
	case name == "":
		return "", "a tool without a name"
	case !ok:
		return "", "it is not a tool of the approved version"
	case listed > 1:
		return "", "the server listed it more than once"
	}
	hash, err := pin.ToolHash(raw)
	switch {
	case err != nil:
		return "", "its definition cannot be pinned: " + err.Error()
	case hash != pinned:
		return "", "its definition differs from the approved one"
	}
	members, err := objectMembers(raw)
	if err != nil {
		return "", "its definition cannot be read: " + err.Error()
	}
	for _, p := range pinnedMembers {
		if n := foldedLike(members, p); n != p {
			return "", fmt.Sprintf("it has a member %q besides the pinned %q", n, p)
		}
	}
	return hash, ""
}

// pinnedMembers are the members of a tool its hash covers (pin's
// projection).
var pinnedMembers = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// foldedLike returns the first member name that equals name under case
// folding but is not name, or name when there is none. A reader that
// matches member names case-insensitively (Go's encoding/json, last one
// wins) would take that member for name, which the gate and the pins read
// by its exact spelling.
func foldedLike(ms []member, name string) string {
	for _, m := range ms {
		if m.name != name && strings.EqualFold(m.name, name) {
			return m.name
		}
	}
	return name
}

// record makes l the session's listing; a later page adds to it.
func (f *toolFilter) record(l listing, page bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !page {
		f.passed, f.withheld = map[string]string{}, map[string]string{}
	}
	f.listed = true
	mergeListing(listing{passed: f.passed, withheld: f.withheld}, l)
}

// replace makes l the whole listing and reports whether the tools passed
// changed.
func (f *toolFilter) replace(l listing) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	changed := !maps.Equal(f.passed, l.passed)
	f.passed, f.withheld, f.listed = l.passed, l.withheld, true
	return changed
}

// admitted returns the hash and definition of a tool the session may
// call, or why not.
func (f *toolFilter) admitted(name string) (hash string, def json.RawMessage, why string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if h, ok := f.passed[name]; ok {
		return h, f.defs[h], ""
	}
	at := f.entry.Name + "@" + f.entry.Version
	if w, ok := f.withheld[name]; ok {
		return "", nil, fmt.Sprintf("tool %q of %s is withheld: %s", name, at, w)
	}
	if _, ok := f.pinned[name]; ok && !f.listed {
		return "", nil, fmt.Sprintf("tool %q of %s has not been listed in this session yet: list the tools first", name, at)
	}
	if _, ok := f.pinned[name]; ok {
		return "", nil, fmt.Sprintf("tool %q of %s was not in the server's latest tool list", name, at)
	}
	return "", nil, fmt.Sprintf("tool %q is not a tool of the approved version %s", name, at)
}

// checkInstructions says why an initialize result withholds the server
// ("" when its instructions are the approved ones).
func (f *toolFilter) checkInstructions(result json.RawMessage) string {
	want := f.entry.Pins.InstructionsHash
	if want == "" {
		return ""
	}
	instructions, err := instructionsOf(result)
	if err != nil {
		return fmt.Sprintf("%s@%s is withheld: its initialize or discover result cannot be read: %v", f.entry.Name, f.entry.Version, err)
	}
	if pin.InstructionsHash(instructions) != want {
		return fmt.Sprintf("%s@%s is withheld: its instructions differ from the approved ones", f.entry.Name, f.entry.Version)
	}
	return ""
}

// instructionsOf reads the "instructions" member of an initialize result
// (nil when absent or null) by its exact name, as a host does; a result
// with duplicate member names, or with a member that differs from
// "instructions" only in case, cannot be read.
func instructionsOf(result json.RawMessage) (*string, error) {
	members, err := objectMembers(result)
	if err != nil {
		return nil, err
	}
	if n := foldedLike(members, "instructions"); n != "instructions" {
		return nil, fmt.Errorf(`a member %q besides "instructions"`, n)
	}
	i := slices.IndexFunc(members, func(m member) bool { return m.name == "instructions" })
	if i < 0 {
		return nil, nil
	}
	var s *string
	if err := json.Unmarshal(members[i].value, &s); err != nil {
		return nil, fmt.Errorf("instructions: %w", err)
	}
	return s, nil
}

// withheldNames lists l's withheld tools for a log line.
func (l listing) withheldNames() string {
	names := slices.Sorted(maps.Keys(l.withheld))
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%q (%s)", n, l.withheld[n])
	}
	return strings.Join(parts, ", ")
}

// member is one member of a JSON object, its value as received.
type member struct {
	name  string
	value json.RawMessage
}

// objectMembers reads a JSON object's members in order; duplicate names
// and invalid UTF-8 are errors.
func objectMembers(raw json.RawMessage) ([]member, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []member
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String() // the token is void after the next read
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		out = append(out, member{name: name, value: bytes.Clone(v)})
	}
	return out, nil
}

// arrayElements reads a JSON array's elements as received.
func arrayElements(raw json.RawMessage) ([]json.RawMessage, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return nil, fmt.Errorf("not a JSON array")
	}
	var out []json.RawMessage
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		out = append(out, json.RawMessage(bytes.Clone(v)))
	}
	return out, nil
}

// joinArray writes raw values as a JSON array.
func joinArray(vs []json.RawMessage) json.RawMessage {
	b := []byte{'['}
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return append(b, ']')
}

// joinObject writes members as a JSON object, values as given.
func joinObject(ms []member) json.RawMessage {
	b := []byte{'{'}
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, quote(m.name)...), ':'), m.value...)
	}
	return append(b, '}')
}
