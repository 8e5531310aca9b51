package pin

import (
	"errors"
	"strings"
	"testing"
)

// rejectCase is input ParseToolsList must refuse, and how.
type rejectCase struct {
	name    string
	in      string
	lim     Limits
	kind    error  // ErrInvalid or ErrTooLarge
	pointer string // expected Error.Pointer
	reason  string // substring of Error.Reason
}

var rejectCases = []rejectCase{
	{"empty input", "", Limits{}, ErrInvalid, "", "empty input"},
	{"whitespace only", " \n\t", Limits{}, ErrInvalid, "", "empty input"},
	{"duplicate tool names", `{"tools":[{"name":"a"},{"name":"b"},{"name":"a"}]}`, Limits{}, ErrInvalid, "/tools/2/name", `duplicate tool name "a" (tools 0 and 2)`},
	{"duplicate tool names bare array", `[{"name":"a"},{"name":"a"}]`, Limits{}, ErrInvalid, "/1/name", `duplicate tool name "a"`},
	{"duplicate names after unescaping", `[{"name":"a"},{"name":"\u0061"}]`, Limits{}, ErrInvalid, "/1/name", `duplicate tool name "a"`},
	{"tool without name", `{"tools":[{"name":"a"},{"title":"x"}]}`, Limits{}, ErrInvalid, "/tools/1", `no "name" member`},
	{"name is a number", `{"tools":[{"name":1}]}`, Limits{}, ErrInvalid, "/tools/0/name", "must be a string, got number"},
	{"name is null", `{"tools":[{"name":null}]}`, Limits{}, ErrInvalid, "/tools/0/name", "must be a string, got null"},
	{"name is an object", `{"tools":[{"name":{}}]}`, Limits{}, ErrInvalid, "/tools/0/name", "must be a string, got object"},
	{"tool is not an object", `{"tools":[{"name":"a"},"b"]}`, Limits{}, ErrInvalid, "/tools/1", "must be an object, got string"},
	{"duplicate member in tool", `{"tools":[{"name":"a","name":"b"}]}`, Limits{}, ErrInvalid, "/tools/0/name", `duplicate object member name "name"`},
	{"duplicate member deep", `{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{},"x":{}}}}]}`, Limits{}, ErrInvalid, "/tools/0/inputSchema/properties/x", `duplicate object member name "x"`},
	{"duplicate member escaped", `{"tools":[{"name":"a","inputSchema":{"x":1,"\u0078":2}}]}`, Limits{}, ErrInvalid, "/tools/0/inputSchema/x", "duplicate object member name"},
	{"duplicate member in ignored member", `{"tools":[],"_meta":{"k":1,"k":2}}`, Limits{}, ErrInvalid, "/_meta/k", "duplicate"},
	{"duplicate tools member", `{"tools":[],"tools":[]}`, Limits{}, ErrInvalid, "/tools", "duplicate"},
	{"invalid UTF-8 in value", "{\"tools\":[{\"name\":\"a\",\"description\":\"x\xffy\"}]}", Limits{}, ErrInvalid, "/tools/0/description", "invalid UTF-8"},
	{"invalid UTF-8 in name", "{\"tools\":[{\"name\":\"a\",\"d\xc3\":1}]}", Limits{}, ErrInvalid, "/tools/0", "invalid UTF-8"},
	{"overlong UTF-8", "[{\"name\":\"\xc0\xaf\"}]", Limits{}, ErrInvalid, "/0/name", "invalid UTF-8"},
	{"encoded surrogate in UTF-8", "[{\"name\":\"\xed\xa0\x80\"}]", Limits{}, ErrInvalid, "/0/name", "invalid UTF-8"},
	{"lone high surrogate", `{"tools":[{"name":"a","description":"\ud800"}]}`, Limits{}, ErrInvalid, "/tools/0/description", "lone or misordered UTF-16 surrogate escape"},
	{"lone low surrogate", `{"tools":[{"name":"a","description":"x\udc00y"}]}`, Limits{}, ErrInvalid, "/tools/0/description", "lone or misordered UTF-16 surrogate escape"},
	{"high surrogate then letter", `[{"name":"\ud83d\u0041"}]`, Limits{}, ErrInvalid, "/0/name", "surrogate"},
	{"surrogates reversed", `[{"name":"\ude00\ud83d"}]`, Limits{}, ErrInvalid, "/0/name", "surrogate"},
	{"lone surrogate in member name", `[{"name":"a","\udbff":1}]`, Limits{}, ErrInvalid, "/0", "surrogate"},
	{"number 1e400", `{"tools":[{"name":"a","inputSchema":{"properties":{"x":{"maximum":1e400}}}}]}`, Limits{}, ErrInvalid, "/tools/0/inputSchema/properties/x/maximum", "number 1e400 is outside the IEEE 754 double range"},
	{"number -1e400", `[{"name":"a","x":[0,-1e400]}]`, Limits{}, ErrInvalid, "/0/x/1", "number -1e400 is outside"},
	{"number just over max double", `[{"name":"a","x":1.7976931348623159e308}]`, Limits{}, ErrInvalid, "/0/x", "outside"},
	{"number in ignored member", `{"tools":[],"nextCursor":2e308}`, Limits{}, ErrInvalid, "/nextCursor", "outside"},
	{"too deep", `[{"name":"a","s":{"a":{"b":[1]}}}]`, Limits{MaxDepth: 4}, ErrTooLarge, "/0/s/a/b", "nesting depth is over the limit of 4"},
	{"too deep by default", `[{"name":"a","s":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}]`, Limits{}, ErrTooLarge, "/0/s" + strings.Repeat("/0", 62), "limit of 64"},
	{"too many tools", `{"tools":[{"name":"a"},{"name":"b"},{"name":"c"}]}`, Limits{MaxTools: 2}, ErrTooLarge, "/tools/2", "more than 2 tools"},
	{"too large", `{"tools":[{"name":"a"}]}`, Limits{MaxBytes: 10}, ErrTooLarge, "", "over the limit of 10 bytes"},
	{"trailing garbage", `{"tools":[]} x`, Limits{}, ErrInvalid, "", "unexpected data after"},
	{"second value", `{"tools":[]}{"tools":[]}`, Limits{}, ErrInvalid, "", "unexpected data after"},
	{"trailing bracket", `{"tools":[]}]`, Limits{}, ErrInvalid, "", "unexpected data after"},
	{"truncated", `{"tools":[{"name":"a"}`, Limits{}, ErrInvalid, "/tools", "unexpected end of input"},
	{"byte order mark", "\xef\xbb\xbf[]", Limits{}, ErrInvalid, "", "invalid character"},
	{"comment", `[] // c`, Limits{}, ErrInvalid, "", "unexpected data after"},
	{"single quotes", `{'tools':[]}`, Limits{}, ErrInvalid, "", "invalid character"},
	{"NaN", `[{"name":"a","x":NaN}]`, Limits{}, ErrInvalid, "/0/x", "invalid character"},
	{"leading zero", `[{"name":"a","x":01}]`, Limits{}, ErrInvalid, "/0", "invalid character"},
	{"instructions number", `{"tools":[],"instructions":1}`, Limits{}, ErrInvalid, "/instructions", "must be a string or null, got number"},
	{"instructions object", `{"instructions":{},"tools":[]}`, Limits{}, ErrInvalid, "/instructions", "got object"},
	{"instructions array", `{"tools":[],"instructions":["x"]}`, Limits{}, ErrInvalid, "/instructions", "got array"},
	{"instructions boolean", `{"tools":[],"instructions":false}`, Limits{}, ErrInvalid, "/instructions", "got boolean"},
	{"missing tools", `{"instructions":"x","nextCursor":"c"}`, Limits{}, ErrInvalid, "", `missing "tools" member`},
	{"tools is an object", `{"tools":{"name":"a"}}`, Limits{}, ErrInvalid, "/tools", "tools must be an array, got object"},
	{"tools is null", `{"tools":null}`, Limits{}, ErrInvalid, "/tools", "got null"},
	{"top level string", `"tools"`, Limits{}, ErrInvalid, "", "got string"},
	{"top level null", `null`, Limits{}, ErrInvalid, "", "got null"},
}

func TestParseToolsListRejects(t *testing.T) {
	for _, tc := range rejectCases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ParseToolsList([]byte(tc.in), tc.lim)
			if l != nil {
				t.Errorf("got a tools list with the error")
			}
			assertRejected(t, err, tc)
		})
	}
}

func assertRejected(t *testing.T, err error, tc rejectCase) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *Error", err, err)
	}
	if !errors.Is(err, tc.kind) {
		t.Errorf("errors.Is(%v, %v) = false", err, tc.kind)
	}
	if other := otherKind(tc.kind); errors.Is(err, other) {
		t.Errorf("errors.Is(%v, %v) = true, kinds must be distinct", err, other)
	}
	if e.Pointer != tc.pointer {
		t.Errorf("Pointer = %q, want %q (%v)", e.Pointer, tc.pointer, err)
	}
	if !strings.Contains(e.Reason, tc.reason) {
		t.Errorf("Reason = %q, want it to contain %q", e.Reason, tc.reason)
	}
}

func otherKind(kind error) error {
	if errors.Is(kind, ErrInvalid) {
		return ErrTooLarge
	}
	return ErrInvalid
}

func TestValidateRejects(t *testing.T) {
	tests := []rejectCase{
		{"duplicate at depth", `{"a":[{"b":{"c":1,"c":1}}]}`, Limits{}, ErrInvalid, "/a/0/b/c", `duplicate object member name "c"`},
		{"pointer escaping", `{"a/b":{"~":1,"~":2}}`, Limits{}, ErrInvalid, "/a~1b/~0", "duplicate"},
		{"lone surrogate", `["\udfff"]`, Limits{}, ErrInvalid, "/0", "surrogate"},
		{"too large", `[1,2,3]`, Limits{MaxBytes: 6}, ErrTooLarge, "", "7 bytes"},
		{"too deep", `[[[]]]`, Limits{MaxDepth: 2}, ErrTooLarge, "/0/0", "limit of 2"},
		{"out of range", `{"n":-1e309}`, Limits{}, ErrInvalid, "/n", "outside"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertRejected(t, Validate([]byte(tc.in), tc.lim), tc)
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	for _, in := range []string{
		`0`, ` "x" `, "\n[]\r\n", `{"a":{"a":{"a":1}}}`, `[1e308,-1e308,1e-400,5e-324]`,
		`"\ud83d\ude00"`, `{"a":1,"b":{"a":1}}`, `[[[]]]`,
	} {
		if err := Validate([]byte(in), Limits{MaxDepth: 3}); err != nil {
			t.Errorf("Validate(%s) = %v", in, err)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	_, err := ParseToolsList([]byte(`{"tools":[{"name":"a","inputSchema":{"p":{"x":1,"x":2}}}]}`), Limits{})
	want := `pin: duplicate object member name "x" at /tools/0/inputSchema/p/x (line 1, column 49; byte offset 48)`
	if err == nil || err.Error() != want {
		t.Errorf("Error() = %v, want %s", err, want)
	}
	// Across lines: the line and column of the offending byte.
	_, err = ParseToolsList([]byte("{\"tools\":[\n {\"name\":\"a\",}\n]}"), Limits{})
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 13 || !strings.Contains(err.Error(), "(line 2, column 13; byte offset 23)") {
		t.Errorf("a syntax error on line 2: %v", err)
	}
}

func TestLineColumn(t *testing.T) {
	data := []byte("ab\ncd\n\nef")
	for _, tc := range []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {1, 1, 2}, {2, 1, 3}, {3, 2, 1}, {6, 3, 1}, {7, 4, 1}, {9, 4, 3}, {100, 4, 3}, {-5, 1, 1}} {
		if l, c := LineColumn(data, tc.off); l != tc.line || c != tc.col {
			t.Errorf("LineColumn(%d) = %d:%d, want %d:%d", tc.off, l, c, tc.line, tc.col)
		}
	}
}
