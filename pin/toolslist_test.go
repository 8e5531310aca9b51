package pin

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

func TestParseToolsListRawPreserved(t *testing.T) {
	t0 := "{ \"name\" : \"a\",\n\t\"description\":\"x\\u0041\\/\",  \"n\": 1.50E+0 ,\"_meta\":{} }"
	t1 := `{"name":"b","inputSchema":{"type":"object"}}`
	in := "  {\"tools\" : [ " + t0 + " ,\n" + t1 + "], \"nextCursor\": \"c\" }\n"
	l, err := ParseToolsList([]byte(in), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Tools) != 2 || l.Tools[0].Name != "a" || l.Tools[1].Name != "b" {
		t.Fatalf("tools = %+v", l.Tools)
	}
	for i, want := range []string{t0, t1} {
		if got := string(l.Tools[i].Raw); got != want {
			t.Errorf("Raw[%d] = %q, want %q", i, got, want)
		}
	}
}

func TestParseToolsListRawIsACopy(t *testing.T) {
	in := []byte(`[{"name":"a"}]`)
	l, err := ParseToolsList(in, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	in[3] = 'X'
	if string(l.Tools[0].Raw) != `{"name":"a"}` {
		t.Errorf("Raw shares memory with the input: %s", l.Tools[0].Raw)
	}
}

func TestParseToolsListInstructions(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		in   string
		want *string
	}{
		{"absent", `{"tools":[]}`, nil},
		{"null", `{"tools":[],"instructions":null}`, nil},
		{"empty", `{"tools":[],"instructions":""}`, str("")},
		{"escaped", `{"instructions":"a\nb\u00e9\ud83d\ude00","tools":[]}`, str("a\nb\u00e9\U0001F600")},
		{"bare array", `[]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseToolsList([]byte(tt.in), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if (l.Instructions == nil) != (tt.want == nil) || (tt.want != nil && *l.Instructions != *tt.want) {
				t.Errorf("Instructions = %v, want %v", l.Instructions, tt.want)
			}
			if l.Tools == nil || len(l.Tools) != 0 {
				t.Errorf("Tools = %#v, want empty non-nil", l.Tools)
			}
		})
	}
}

func TestInstructionsHash(t *testing.T) {
	empty, text := "", "x"
	absent := InstructionsHash(nil)
	if absent == InstructionsHash(&empty) {
		t.Error("absent and empty instructions hash alike")
	}
	if InstructionsHash(&text) == InstructionsHash(&empty) {
		t.Error("different instructions hash alike")
	}
	null := "null"
	if absent == InstructionsHash(&null) {
		t.Error(`absent instructions hash like the string "null"`)
	}
	bad, repl := "a\xffb", "a\ufffdb"
	if InstructionsHash(&bad) != InstructionsHash(&repl) {
		t.Error("invalid UTF-8 is not treated as U+FFFD")
	}
}

func TestComputeRejects(t *testing.T) {
	tests := []struct {
		name    string
		list    *ToolsList
		pointer string
	}{
		{"nil list", nil, ""},
		{"name differs from raw", &ToolsList{Tools: []Tool{{Name: "b", Raw: []byte(`{"name":"a"}`)}}}, "/tools/0/name"},
		{"duplicate names", &ToolsList{Tools: []Tool{{Name: "a", Raw: []byte(`{"name":"a"}`)}, {Name: "a", Raw: []byte(`{"name":"a","title":""}`)}}}, "/tools/1/name"},
		{"raw not JSON", &ToolsList{Tools: []Tool{{Name: "a", Raw: []byte(`{"name":"a"`)}}}, "/tools/0"},
		{"raw has duplicate member", &ToolsList{Tools: []Tool{{Name: "a", Raw: []byte(`{"name":"a","x":{"y":1,"y":1}}`)}}}, "/tools/0/x/y"},
		{"raw has huge number", &ToolsList{Tools: []Tool{{Name: "a", Raw: []byte(`{"name":"a","x":1e999}`)}}}, "/tools/0/x"},
		{"raw is an array", &ToolsList{Tools: []Tool{{Name: "a", Raw: []byte(`[]`)}}}, "/tools/0"},
		{"raw has no name", &ToolsList{Tools: []Tool{{Name: "a", Raw: []byte(`{}`)}}}, "/tools/0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compute(tt.list)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Compute error = %v, want *Error matching ErrInvalid", err)
			}
			if e.Pointer != tt.pointer {
				t.Errorf("Pointer = %q, want %q", e.Pointer, tt.pointer)
			}
		})
	}
}

func TestComputeKeepsInput(t *testing.T) {
	l, err := ParseToolsList([]byte(`[{"name":"b"},{"name":"a"}]`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(l.Tools)
	if _, err := Compute(l); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(before, l.Tools, func(a, b Tool) bool { return a.Name == b.Name && bytes.Equal(a.Raw, b.Raw) }) {
		t.Errorf("Compute changed the list: %+v", l.Tools)
	}
}

func TestToolHashAndContractHashReject(t *testing.T) {
	for _, raw := range []string{``, `[]`, `{"name":1}`, `{"name":"a","name":"a"}`, `{"name":"\ud800"}`, `{"name":"a"} {}`} {
		if _, err := ToolHash([]byte(raw)); !errors.Is(err, ErrInvalid) {
			t.Errorf("ToolHash(%s) error = %v, want ErrInvalid", raw, err)
		}
	}
	for _, c := range []string{``, `{"a":1,"a":2}`, `[1e400]`, "\"\xff\"", `{} x`} {
		if _, err := ContractHash([]byte(c)); !errors.Is(err, ErrInvalid) {
			t.Errorf("ContractHash(%s) error = %v, want ErrInvalid", c, err)
		}
	}
}

func TestDefaultLimits(t *testing.T) {
	want := Limits{MaxBytes: 4 << 20, MaxDepth: 64, MaxTools: 1000}
	if got := DefaultLimits(); got != want {
		t.Errorf("DefaultLimits() = %+v, want %+v", got, want)
	}
	if got := (Limits{MaxDepth: 3, MaxTools: -1}).withDefaults(); got != (Limits{MaxBytes: 4 << 20, MaxDepth: 3, MaxTools: 1000}) {
		t.Errorf("withDefaults() = %+v", got)
	}
}

func TestLimitsAtTheEdge(t *testing.T) {
	in := []byte(`{"tools":[{"name":"a","s":[[]]},{"name":"b"}]}`)
	if _, err := ParseToolsList(in, Limits{MaxBytes: len(in), MaxDepth: 5, MaxTools: 2}); err != nil {
		t.Errorf("input exactly at the limits rejected: %v", err)
	}
}
