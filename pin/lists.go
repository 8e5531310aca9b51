package pin

import (
	"bytes"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// listSpec describes one array of a tools file: its tools, prompts,
// resources or resource templates.
type listSpec struct {
	member   string // the tools-file member holding the array
	plural   string // in messages: "resource templates"
	singular string // in messages: "resource template"
	key      string // the member naming an element, unique in the array
	field    string // the Go field holding the key: "ResourceTemplate.URITemplate"
	// check, when set, applies further rules to an element's members.
	check func(ms []member, ptr string, off int64) error
}

var (
	toolsList     = listSpec{member: "tools", plural: "tools", singular: "tool", key: "name", field: "Tool.Name"}
	promptsList   = listSpec{member: "prompts", plural: "prompts", singular: "prompt", key: "name", field: "Prompt.Name", check: checkPrompt}
	resourcesList = listSpec{member: "resources", plural: "resources", singular: "resource", key: "uri", field: "Resource.URI"}
	templatesList = listSpec{
		member: "resourceTemplates", plural: "resource templates", singular: "resource template",
		key: "uriTemplate", field: "ResourceTemplate.URITemplate",
	}
)

// element is one object of a list, as read.
type element struct {
	key     string   // the value of the key member
	raw     []byte   // the object byte for byte
	members []member // its members, in order
}

// list reads the array at ptr whose elements s describes.
func (p *parser) list(ptr string, s listSpec) ([]element, error) {
	if k := p.d.PeekKind(); k != jsontext.KindBeginArray {
		return nil, invalidf(ptr, p.offset(), "%s must be an array, got %s", s.member, kindName(k))
	}
	if _, err := p.d.ReadToken(); err != nil {
		return nil, decodeError(err)
	}
	els := []element{}
	seen := map[string]int{}
	for p.d.PeekKind() != jsontext.KindEndArray {
		e, err := p.element(ptr, s, len(els), seen)
		if err != nil {
			return nil, err
		}
		els = append(els, e)
	}
	_, err := p.d.ReadToken()
	return els, decodeErrorOrNil(err)
}

// element reads the element at index i and records its key in seen.
func (p *parser) element(ptr string, s listSpec, i int, seen map[string]int) (element, error) {
	at := pointerTo(ptr, strconv.Itoa(i))
	off := p.offset()
	if i >= p.lim.MaxTools {
		return element{}, tooLargef(at, off, "more than %d %s", p.lim.MaxTools, s.plural)
	}
	v, err := p.d.ReadValue()
	if err != nil {
		return element{}, decodeError(err)
	}
	e, err := readElement(v, s, at, off)
	if err != nil {
		return element{}, err
	}
	if first, dup := seen[e.key]; dup {
		return element{}, invalidf(pointerTo(at, s.key), off, "duplicate %s %s %q (%s %d and %d)", s.singular, s.key, e.key, s.plural, first, i)
	}
	seen[e.key] = i
	e.raw = bytes.Clone(v)
	return e, nil
}

// readElement reads the element v found at ptr and off: an object with a
// string key member that passes s.check. The raw field is left unset.
func readElement(v jsontext.Value, s listSpec, ptr string, off int64) (element, error) {
	if v.Kind() != jsontext.KindBeginObject {
		return element{}, invalidf(ptr, off, "a %s must be an object, got %s", s.singular, kindName(v.Kind()))
	}
	ms, err := objectMembers(v)
	if err != nil {
		return element{}, rebase(err, ptr)
	}
	key, err := keyOf(ms, s, ptr, off)
	if err != nil {
		return element{}, err
	}
	if s.check != nil {
		err = s.check(ms, ptr, off)
	}
	return element{key: key, members: ms}, err
}

// keyOf finds the string key member among ms.
func keyOf(ms []member, s listSpec, ptr string, off int64) (string, error) {
	v, ok := memberValue(ms, s.key)
	if !ok {
		return "", invalidf(ptr, off, "%s has no %q member", s.singular, s.key)
	}
	if k := v.Kind(); k != jsontext.KindString {
		return "", invalidf(pointerTo(ptr, s.key), off, "%s %s must be a string, got %s", s.singular, s.key, kindName(k))
	}
	return unquote(v)
}

// memberValue returns the value of the member called name.
func memberValue(ms []member, name string) (jsontext.Value, bool) {
	for _, m := range ms {
		if m.name == name {
			return m.value, true
		}
	}
	return nil, false
}
