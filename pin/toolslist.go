package pin

import (
	"bytes"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Tool is one tool of a tools/list result.
type Tool struct {
	// Name is the tool's "name" member.
	Name string
	// Raw is the tool object byte for byte as received.
	Raw []byte
}

// ToolsList is a parsed tools file.
type ToolsList struct {
	// Tools are in the order received.
	Tools []Tool
	// Instructions is the top-level "instructions" string; nil when that
	// member is absent or null.
	Instructions *string
}

// ParseToolsList strictly reads a tools file: a tools/list result
// ({"tools":[...], ...}) or a bare array of tools. In the object form an
// optional "instructions" member must be a string or null, and members other
// than "tools" and "instructions" are ignored. Every tool must be an object
// with a string "name", unique within the list.
func ParseToolsList(data []byte, lim Limits) (l *ToolsList, err error) {
	defer func() { err = located(err, data) }()
	lim = lim.withDefaults()
	if err := validate(data, lim); err != nil {
		return nil, err
	}
	p := &parser{d: newDecoder(data), lim: lim}
	switch k := p.d.PeekKind(); k {
	case jsontext.KindBeginArray:
		return p.bareArray()
	case jsontext.KindBeginObject:
		return p.result()
	default:
		return nil, invalidf("", p.offset(), "a tools file must be an object with a \"tools\" array or an array of tools, got %s", kindName(k))
	}
}

// parser walks a document that validate has accepted.
type parser struct {
	d   *jsontext.Decoder
	lim Limits
}

// offset returns the offset of the next non-whitespace byte.
func (p *parser) offset() int64 {
	unread := p.d.UnreadBuffer()
	skipped := len(unread) - len(bytes.TrimLeft(unread, " \t\r\n"))
	return p.d.InputOffset() + int64(skipped)
}

func (p *parser) bareArray() (*ToolsList, error) {
	tools, err := p.tools("")
	if err != nil {
		return nil, err
	}
	return &ToolsList{Tools: tools}, nil
}

// result reads the object form.
func (p *parser) result() (*ToolsList, error) {
	if _, err := p.d.ReadToken(); err != nil {
		return nil, decodeError(err)
	}
	l := &ToolsList{}
	sawTools := false
	for p.d.PeekKind() != jsontext.KindEndObject {
		name, err := p.d.ReadToken()
		if err != nil {
			return nil, decodeError(err)
		}
		switch name.String() {
		case "tools":
			sawTools = true
			l.Tools, err = p.tools("/tools")
		case "instructions":
			l.Instructions, err = p.instructions()
		default:
			err = p.d.SkipValue()
		}
		if err != nil {
			return nil, err
		}
	}
	if !sawTools {
		return nil, invalidf("", 0, "missing \"tools\" member")
	}
	return l, nil
}

// instructions reads the value of the "instructions" member.
func (p *parser) instructions() (*string, error) {
	off := p.offset()
	v, err := p.d.ReadValue()
	if err != nil {
		return nil, decodeError(err)
	}
	switch v.Kind() {
	case jsontext.KindNull:
		return nil, nil
	case jsontext.KindString:
		s, err := unquote(v)
		if err != nil {
			return nil, err
		}
		return &s, nil
	}
	return nil, invalidf("/instructions", off, "instructions must be a string or null, got %s", kindName(v.Kind()))
}

// tools reads the array of tools at ptr.
func (p *parser) tools(ptr string) ([]Tool, error) {
	if k := p.d.PeekKind(); k != jsontext.KindBeginArray {
		return nil, invalidf(ptr, p.offset(), "tools must be an array, got %s", kindName(k))
	}
	if _, err := p.d.ReadToken(); err != nil {
		return nil, decodeError(err)
	}
	tools := []Tool{}
	seen := map[string]int{}
	for p.d.PeekKind() != jsontext.KindEndArray {
		t, err := p.tool(ptr, len(tools), seen)
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	_, err := p.d.ReadToken()
	return tools, decodeErrorOrNil(err)
}

// tool reads the tool at index i and records its name in seen.
func (p *parser) tool(ptr string, i int, seen map[string]int) (Tool, error) {
	at := pointerTo(ptr, strconv.Itoa(i))
	off := p.offset()
	if i >= p.lim.MaxTools {
		return Tool{}, tooLargef(at, off, "more than %d tools", p.lim.MaxTools)
	}
	v, err := p.d.ReadValue()
	if err != nil {
		return Tool{}, decodeError(err)
	}
	name, err := toolName(v, at, off)
	if err != nil {
		return Tool{}, err
	}
	if first, dup := seen[name]; dup {
		return Tool{}, invalidf(pointerTo(at, "name"), off, "duplicate tool name %q (tools %d and %d)", name, first, i)
	}
	seen[name] = i
	return Tool{Name: name, Raw: bytes.Clone(v)}, nil
}

// toolName returns the "name" of the tool object v found at ptr and off.
func toolName(v jsontext.Value, ptr string, off int64) (string, error) {
	if v.Kind() != jsontext.KindBeginObject {
		return "", invalidf(ptr, off, "a tool must be an object, got %s", kindName(v.Kind()))
	}
	ms, err := objectMembers(v)
	if err != nil {
		return "", rebase(err, ptr)
	}
	return nameOf(ms, ptr, off)
}

// nameOf finds the string "name" member among ms.
func nameOf(ms []member, ptr string, off int64) (string, error) {
	for _, m := range ms {
		if m.name != "name" {
			continue
		}
		if k := m.value.Kind(); k != jsontext.KindString {
			return "", invalidf(pointerTo(ptr, "name"), off, "tool name must be a string, got %s", kindName(k))
		}
		return unquote(m.value)
	}
	return "", invalidf(ptr, off, "tool has no \"name\" member")
}

func decodeErrorOrNil(err error) error {
	if err == nil {
		return nil
	}
	return decodeError(err)
}
