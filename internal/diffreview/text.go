package diffreview

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// span is one piece of model-visible text of a tool or server.
type span struct {
	pointer string // RFC 6901, into the tool's raw JSON, "/instructions", or into the model file
	text    string
	name    bool // text is an object member name (a property name, a keyword)
	locator bool // text is a uri or uriTemplate: checked for hidden characters only
}

// instructionsPointer is where findings about server instructions point.
const instructionsPointer = "/instructions"

// errNotObject reports a tool that is not a JSON object.
var errNotObject = errors.New("diffreview: a tool must be a JSON object")

// toolSpans lists the model-visible text of one raw tool: its name, title
// and description, and every string and member name inside annotations,
// inputSchema and outputSchema. Members that are not pinned (_meta, icons,
// execution, unknown ones) are skipped. On malformed JSON it returns the
// spans read so far and the error.
func toolSpans(raw []byte) ([]span, error) {
	d := jsontext.NewDecoder(bytes.NewReader(raw))
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		return nil, errNotObject
	}
	w := &walker{d: d}
	for d.PeekKind() != '}' && w.err == nil {
		w.topMember()
	}
	return w.spans, w.err
}

// walker collects spans while reading a tool object.
type walker struct {
	d     *jsontext.Decoder
	spans []span
	err   error
}

// topMember reads one member of the tool object.
func (w *walker) topMember() {
	name, ok := w.readString()
	if !ok {
		return
	}
	ptr := "/" + escapePointer(name)
	switch name {
	case "name", "title", "description":
		w.value(ptr, 0)
	case "annotations", "inputSchema", "outputSchema":
		w.value(ptr, maxWalkDepth)
	default:
		w.fail(w.d.SkipValue())
	}
}

// maxWalkDepth bounds how deep schemas are walked for text.
const maxWalkDepth = 64

// value reads one value at ptr, descending at most depth levels.
func (w *walker) value(ptr string, depth int) {
	switch k := w.d.PeekKind(); {
	case k == '"':
		if s, ok := w.readString(); ok {
			w.spans = append(w.spans, span{pointer: ptr, text: s})
		}
	case depth <= 0 || k != '{' && k != '[':
		w.fail(w.d.SkipValue())
	case k == '{':
		w.object(ptr, depth)
	default:
		w.array(ptr, depth)
	}
}

// object reads an object, recording member names as spans.
func (w *walker) object(ptr string, depth int) {
	if _, err := w.d.ReadToken(); w.fail(err) {
		return
	}
	for w.err == nil && w.d.PeekKind() != '}' {
		name, ok := w.readString()
		if !ok {
			return
		}
		child := ptr + "/" + escapePointer(name)
		w.spans = append(w.spans, span{pointer: child, text: name, name: true})
		w.value(child, depth-1)
	}
	_, err := w.d.ReadToken()
	w.fail(err)
}

// array reads an array.
func (w *walker) array(ptr string, depth int) {
	if _, err := w.d.ReadToken(); w.fail(err) {
		return
	}
	for i := 0; w.err == nil && w.d.PeekKind() != ']'; i++ {
		w.value(ptr+"/"+strconv.Itoa(i), depth-1)
	}
	_, err := w.d.ReadToken()
	w.fail(err)
}

// readString reads a string token.
func (w *walker) readString() (string, bool) {
	tok, err := w.d.ReadToken()
	if w.fail(err) {
		return "", false
	}
	return tok.String(), true
}

// fail records err, if any, and reports whether there was one.
func (w *walker) fail(err error) bool {
	if err != nil && w.err == nil {
		w.err = err
	}
	return w.err != nil
}

// escapePointer escapes one RFC 6901 reference token.
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return pointerEscaper.Replace(s)
}

// Escaping and unescaping of RFC 6901 reference tokens.
var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// propertyOf returns the property name when sp is the name of a schema
// property (…/properties/NAME).
func propertyOf(sp span) (string, bool) {
	if !sp.name {
		return "", false
	}
	parent, _ := splitPointer(sp.pointer)
	return sp.text, strings.HasSuffix(parent, "/properties")
}

// splitPointer splits off the last reference token, unescaped.
func splitPointer(ptr string) (parent, last string) {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return "", ptr
	}
	last = ptr[i+1:]
	if strings.IndexByte(last, '~') >= 0 {
		last = pointerUnescaper.Replace(last)
	}
	return ptr[:i], last
}
