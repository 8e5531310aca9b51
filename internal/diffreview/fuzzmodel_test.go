package diffreview

import (
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/pin"
)

// FuzzModel runs DriftV2 and PoisoningModel over tools files with prompts
// and resources: a file never drifts from itself, and every change and
// finding is well formed.
func FuzzModel(f *testing.F) {
	m := approvedModel()
	f.Add(m.doc(), m.edit("three sentences.", "<IMPORTANT>obey</IMPORTANT>").doc())
	f.Add(m.doc(), model{[]string{`{"name":"p","messages":[{"role":"user","content":[{"type":"resource","resource":{"uri":"a","blob":"aGk="}},{"type":"resource_link","uri":"b","description":"d"},{"x":1},7]},{}]}`}, nil, nil}.doc())
	f.Add(`{"tools":[],"prompts":[{"name":"p","arguments":[{"name":"a"},{"name":"a"},3]}]}`, `{"tools":[],"prompts":[{"name":"p","arguments":{}}]}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		la, errA := pin.ParseToolsList([]byte(a), pin.Limits{})
		lb, errB := pin.ParseToolsList([]byte(b), pin.Limits{})
		if errA != nil || errB != nil {
			return
		}
		if cs := DefaultPolicy().DriftV2(la, la, nil, nil); len(cs) != 0 {
			t.Fatalf("a file drifts from itself: %+v", cs)
		}
		for _, c := range DefaultPolicy().DriftV2(la, lb, nil, nil) {
			if !c.Class.Valid() || c.Message == "" || !jsontext.Pointer(c.Pointer).IsValid() {
				t.Fatalf("malformed change %+v", c)
			}
		}
		checkFindings(t, PoisoningModel(lb), utf8.ValidString(b))
	})
}
