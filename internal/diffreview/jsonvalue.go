package diffreview

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// jsonMember is one name and raw value of a JSON object.
type jsonMember struct {
	name  string
	value jsontext.Value
}

// members lists the members of a valid JSON object, in order; it returns
// what it read so far if the value turns out malformed.
func members(obj jsontext.Value) []jsonMember {
	d := jsontext.NewDecoder(bytes.NewReader(obj))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	var out []jsonMember
	for d.PeekKind() == '"' {
		tok, err := d.ReadToken()
		if err != nil {
			return out
		}
		name := tok.String()
		v, err := d.ReadValue()
		if err != nil {
			return out
		}
		out = append(out, jsonMember{name, bytes.Clone(v)})
	}
	return out
}

// elements lists the elements of a valid JSON array.
func elements(arr jsontext.Value) []jsontext.Value {
	d := jsontext.NewDecoder(bytes.NewReader(arr))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '[' {
		return nil
	}
	var out []jsontext.Value
	for d.PeekKind() != ']' && d.PeekKind() != 0 {
		v, err := d.ReadValue()
		if err != nil {
			return out
		}
		out = append(out, bytes.Clone(v))
	}
	return out
}

// canonical returns the RFC 8785 form of v, or v unchanged if it is not
// valid JSON.
func canonical(v []byte) jsontext.Value {
	c := jsontext.Value(bytes.Clone(v))
	if c.Canonicalize() != nil {
		return jsontext.Value(v)
	}
	return c
}

// stringValue returns the Go string of a JSON string value, or its JSON
// text for any other value.
func stringValue(v jsontext.Value) string {
	if v.Kind() != '"' {
		return string(v)
	}
	s, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return string(v)
	}
	return string(s)
}
