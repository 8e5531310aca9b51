package pin

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseToolsListV2RawPreserved(t *testing.T) {
	p0 := "{ \"name\" : \"a\",\n\"messages\" : [ ] , \"_meta\":{\"x\":1.50E+0} }"
	r0 := `{"uri":"file:\/\/\/a","size":12}`
	t0 := "{\"uriTemplate\":\"x{y}\" }"
	in := "{\"resourceTemplates\":[ " + t0 + " ],\"prompts\": [" + p0 + "],\n\"tools\":[], \"resources\":[ " + r0 + "\t]}"
	l, err := ParseToolsList([]byte(in), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Prompts) != 1 || string(l.Prompts[0].Raw) != p0 || l.Prompts[0].Name != "a" {
		t.Errorf("Prompts = %+v", l.Prompts)
	}
	if len(l.Resources) != 1 || string(l.Resources[0].Raw) != r0 || l.Resources[0].URI != "file:///a" {
		t.Errorf("Resources = %+v", l.Resources)
	}
	if len(l.ResourceTemplates) != 1 || string(l.ResourceTemplates[0].Raw) != t0 || l.ResourceTemplates[0].URITemplate != "x{y}" {
		t.Errorf("ResourceTemplates = %+v", l.ResourceTemplates)
	}
}

func TestParseToolsListV2AbsentAndEmpty(t *testing.T) {
	for _, tt := range []struct {
		name    string
		in      string
		present bool
	}{
		{"absent", `{"tools":[]}`, false},
		{"bare array", `[]`, false},
		{"empty", `{"tools":[],"prompts":[],"resources":[],"resourceTemplates":[]}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseToolsList([]byte(tt.in), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := []bool{l.Prompts != nil, l.Resources != nil, l.ResourceTemplates != nil}; !reflect.DeepEqual(got, []bool{tt.present, tt.present, tt.present}) {
				t.Errorf("non-nil prompts, resources, templates = %v, want all %v", got, tt.present)
			}
			if len(l.Prompts)+len(l.Resources)+len(l.ResourceTemplates) != 0 {
				t.Errorf("lists not empty: %+v", l)
			}
		})
	}
}

func TestPromptNeedsArguments(t *testing.T) {
	tests := []struct {
		arguments string
		want      bool
	}{
		{`[{"name":"a","required":true}]`, true},
		{`[{"name":"a"},{"name":"b","required":true}]`, true},
		{`[{"name":"a","r\u0065quired":true}]`, true},
		{`[]`, false},
		{`null`, false},
		{`[{"name":"a","required":false}]`, false},
		{`[{"name":"a","required":"true"}]`, false},
		{`[{"name":"a","required":1}]`, false},
		{`[{"name":"a","extra":{"required":true}}]`, false},
		{`[true]`, false},
		{`{"a":{"required":true}}`, false},
	}
	for _, tt := range tests {
		l, err := ParseToolsList([]byte(`{"tools":[],"prompts":[{"name":"p","arguments":`+tt.arguments+`}]}`), Limits{})
		if err != nil {
			t.Fatalf("%s: %v", tt.arguments, err)
		}
		if got := l.Prompts[0].NeedsArguments; got != tt.want {
			t.Errorf("arguments %s: NeedsArguments = %v, want %v", tt.arguments, got, tt.want)
		}
	}
}

func TestComputeV2Rejects(t *testing.T) {
	prompt := func(name, raw string) []Prompt { return []Prompt{{Name: name, Raw: []byte(raw)}} }
	tests := []struct {
		name    string
		list    *ToolsList
		pointer string
	}{
		{"nil list", nil, ""},
		{"bad tool", &ToolsList{Tools: []Tool{{Name: "b", Raw: []byte(`{"name":"a"}`)}}}, "/tools/0/name"},
		{"prompt name differs from raw", &ToolsList{Prompts: prompt("b", `{"name":"a"}`)}, "/prompts/0/name"},
		{"prompt raw not JSON", &ToolsList{Prompts: prompt("a", `{"name":"a"`)}, "/prompts/0"},
		{"prompt raw has duplicate member", &ToolsList{Prompts: prompt("a", `{"name":"a","arguments":[{"x":1,"x":1}]}`)}, "/prompts/0/arguments/0/x"},
		{"prompt with required argument and messages", &ToolsList{Prompts: prompt("a", `{"name":"a","arguments":[{"required":true}],"messages":[]}`)}, "/prompts/0/messages"},
		{"duplicate prompts", &ToolsList{Prompts: []Prompt{{Name: "a", Raw: []byte(`{"name":"a"}`)}, {Name: "a", Raw: []byte(`{"name":"a"}`)}}}, "/prompts/1/name"},
		{"resource uri differs from raw", &ToolsList{Resources: []Resource{{URI: "b", Raw: []byte(`{"uri":"a"}`)}}}, "/resources/0/uri"},
		{"resource raw is an array", &ToolsList{Resources: []Resource{{URI: "a", Raw: []byte(`[]`)}}}, "/resources/0"},
		{"duplicate resources", &ToolsList{Resources: []Resource{{URI: "b", Raw: []byte(`{"uri":"b"}`)}, {URI: "a", Raw: []byte(`{"uri":"a"}`)}, {URI: "b", Raw: []byte(`{"uri":"b","name":"x"}`)}}}, "/resources/2/uri"},
		{"template raw has no uriTemplate", &ToolsList{ResourceTemplates: []ResourceTemplate{{URITemplate: "a", Raw: []byte(`{"uri":"a"}`)}}}, "/resourceTemplates/0"},
		{"template raw has huge number", &ToolsList{ResourceTemplates: []ResourceTemplate{{URITemplate: "a", Raw: []byte(`{"uriTemplate":"a","size":1e999}`)}}}, "/resourceTemplates/0/size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ComputeV2(tt.list)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("ComputeV2 error = %v, want *Error matching ErrInvalid", err)
			}
			if e.Pointer != tt.pointer {
				t.Errorf("Pointer = %q, want %q (%v)", e.Pointer, tt.pointer, err)
			}
		})
	}
}

// TestComputeUnchangedByV2Members checks that the v1 pins ignore prompts,
// resources and templates: Compute of a v1 vector is its golden pins with
// any of them added.
func TestComputeUnchangedByV2Members(t *testing.T) {
	const members = `"prompts":[{"name":"p","messages":[]}],"resources":[{"uri":"r","size":1}],"resourceTemplates":[{"uriTemplate":"t{x}"}],`
	for _, in := range vectorInputs(t) {
		data := readFile(t, in)
		if data[0] != '{' {
			continue // a bare array cannot carry them
		}
		with := append([]byte("{"+members), data[1:]...)
		got, want := mustPins(t, string(with)), mustPins(t, string(data))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: v1 pins moved when prompts and resources were added", in)
		}
		v2, err := ComputeV2(mustParse(t, string(with)))
		if err != nil || !reflect.DeepEqual(v2.Pins, want) {
			t.Errorf("%s: ComputeV2 v1 hashes %+v, %v; want %+v", in, v2.Pins, err, want)
		}
	}
}

func mustParse(t testing.TB, in string) *ToolsList {
	t.Helper()
	l, err := ParseToolsList([]byte(in), Limits{})
	if err != nil {
		t.Fatalf("ParseToolsList: %v", err)
	}
	return l
}

func mustPinsV2(t testing.TB, in string) PinsV2 {
	t.Helper()
	p, err := ComputeV2(mustParse(t, in))
	if err != nil {
		t.Fatalf("ComputeV2: %v", err)
	}
	return p
}
