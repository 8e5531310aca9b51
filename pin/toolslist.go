package pin

import (
	"bytes"

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
	// Prompts, Resources and ResourceTemplates are the top-level "prompts",
	// "resources" and "resourceTemplates" arrays, in the order received.
	// Each is nil when its member is absent (always in the bare-array form)
	// and non-nil when present, even if empty; the pins do not tell the two
	// apart.
	Prompts           []Prompt
	Resources         []Resource
	ResourceTemplates []ResourceTemplate
}

// ParseToolsList strictly reads a tools file: a tools/list result
// ({"tools":[...], ...}) or a bare array of tools. In the object form an
// optional "instructions" member must be a string or null; optional
// "prompts", "resources" and "resourceTemplates" members must be arrays of
// objects with a string "name", "uri" and "uriTemplate" respectively, unique
// within their array; a prompt's "messages" member must be an array and only
// appears on a prompt without a required argument. Other members are
// ignored. Every tool must be an object with a string "name", unique within
// the list.
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

// offset returns the offset of the next value: the next byte that is
// neither whitespace nor the "," or ":" the decoder has not consumed yet.
func (p *parser) offset() int64 {
	unread := p.d.UnreadBuffer()
	skipped := len(unread) - len(bytes.TrimLeft(unread, " \t\r\n,:"))
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
	for p.d.PeekKind() != jsontext.KindEndObject {
		name, err := p.d.ReadToken()
		if err != nil {
			return nil, decodeError(err)
		}
		if err := p.member(l, name.String()); err != nil {
			return nil, err
		}
	}
	if l.Tools == nil {
		return nil, invalidf("", 0, "missing \"tools\" member")
	}
	return l, nil
}

// member reads the value of the top-level member called name into l.
func (p *parser) member(l *ToolsList, name string) (err error) {
	switch name {
	case "tools":
		l.Tools, err = p.tools("/tools")
	case "instructions":
		l.Instructions, err = p.instructions()
	case "prompts":
		l.Prompts, err = p.prompts()
	case "resources":
		l.Resources, err = p.resources()
	case "resourceTemplates":
		l.ResourceTemplates, err = p.templates()
	default:
		err = p.d.SkipValue()
	}
	return err
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
	els, err := p.list(ptr, toolsList)
	if err != nil {
		return nil, err
	}
	tools := make([]Tool, len(els))
	for i, e := range els {
		tools[i] = Tool{Name: e.key, Raw: e.raw}
	}
	return tools, nil
}

func decodeErrorOrNil(err error) error {
	if err == nil {
		return nil
	}
	return decodeError(err)
}
