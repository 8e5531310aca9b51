package scan

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// withoutTTL returns the message msg (an answer the recorder read
// strictly) with "ttlMs" removed from its result, every other byte as
// received; msg itself when it cannot be rewritten.
func withoutTTL(msg []byte) []byte {
	out, err := rewriteMember(msg, "result", func(result jsontext.Value) ([]byte, error) {
		return rewriteMember(result, "ttlMs", nil)
	})
	if err != nil {
		return msg
	}
	return out
}

// rewriteMember writes the object v with its member name replaced by
// what change returns for its value (dropped when change is nil).
func rewriteMember(v []byte, name string, change func(jsontext.Value) ([]byte, error)) ([]byte, error) {
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	b := []byte{'{'}
	first := true
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		key := tok.String()
		val, err := d.ReadValue()
		if err != nil {
			return nil, err
		}
		if key == name {
			if change == nil {
				continue
			}
			changed, err := change(val)
			if err != nil {
				return nil, err
			}
			val = changed
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b, _ = jsontext.AppendQuote(b, key) // a name the decoder read is valid
		b = append(append(b, ':'), val...)
	}
	return append(b, '}'), nil
}
