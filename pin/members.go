package pin

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// member is one name/value pair of a JSON object; name is unescaped, value
// is the raw JSON text as it appeared.
type member struct {
	name  string
	value jsontext.Value
}

// objectMembers lists the members of obj, a valid JSON object, in order.
func objectMembers(obj jsontext.Value) ([]member, error) {
	d := newDecoder(obj)
	if _, err := d.ReadToken(); err != nil {
		return nil, decodeError(err)
	}
	var ms []member
	for d.PeekKind() != jsontext.KindEndObject {
		m, err := readMember(d)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// readMember reads the next name and value from d.
func readMember(d *jsontext.Decoder) (member, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return member{}, decodeError(err)
	}
	name := tok.String() // tok is void after the next read
	v, err := d.ReadValue()
	if err != nil {
		return member{}, decodeError(err)
	}
	return member{name: name, value: bytes.Clone(v)}, nil
}

// unquote returns the Go string of a valid JSON string value.
func unquote(v jsontext.Value) (string, error) {
	b, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return "", invalidf("", -1, "%v", err)
	}
	return string(b), nil
}

// kindName names the JSON type of kind k for error messages.
func kindName(k jsontext.Kind) string {
	switch k {
	case jsontext.KindNull:
		return "null"
	case jsontext.KindTrue, jsontext.KindFalse:
		return "boolean"
	case jsontext.KindString:
		return "string"
	case jsontext.KindNumber:
		return "number"
	case jsontext.KindBeginObject:
		return "object"
	case jsontext.KindBeginArray:
		return "array"
	}
	return "invalid JSON"
}

// pointerTo appends a member name or array index to ptr, escaping it.
func pointerTo(ptr string, token string) string {
	return string(jsontext.Pointer(ptr).AppendToken(token))
}
