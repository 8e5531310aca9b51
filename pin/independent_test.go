package pin_test

// A second implementation of the pin specifications, written from
// docs/pin-spec.md and sharing no code with package pin: encoding/json with
// UseNumber instead of jsontext, map projections, and its own RFC 8785
// serializer (independent_jcs_test.go). It recomputes every hash of the v1
// and v2 golden vectors and compares them with the golden pins files; apart
// from that, checkAgainstCompute checks that the v1 hashes in the v2 pins
// are what pin.Compute returns.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/testkit"
	"github.com/mcpreg/mcpreg/pin"
)

// goldenPins is a pins file of either version; the v2 members stay empty
// in v1 files.
type goldenPins struct {
	ToolDefinitionHash string `json:"toolDefinitionHash"`
	SchemaHash         string `json:"schemaHash"`
	InstructionsHash   string `json:"instructionsHash"`
	Tools              []struct {
		Name string `json:"name"`
		Hash string `json:"hash"`
	} `json:"tools"`
	PromptsHash   string `json:"promptsHash"`
	ResourcesHash string `json:"resourcesHash"`
	Prompts       []struct {
		Name string `json:"name"`
		Hash string `json:"hash"`
	} `json:"prompts"`
}

func TestIndependentV2(t *testing.T) {
	for _, in := range independentInputs(t, "pin/v2/*.json") {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data := readAll(t, in)
			want := readGolden(t, in)
			doc := decodeNumbers(t, data)
			checkV1Hashes(t, doc, want)
			if got := hashOf("mcpreg-pin-v2/prompts", promptsValue(doc)); got != want.PromptsHash {
				t.Errorf("promptsHash = %s, golden %s", got, want.PromptsHash)
			}
			if got := hashOf("mcpreg-pin-v2/resources", resourcesValue(doc)); got != want.ResourcesHash {
				t.Errorf("resourcesHash = %s, golden %s", got, want.ResourcesHash)
			}
			prompts := promptsValue(doc) // sorted by name
			if len(prompts) != len(want.Prompts) {
				t.Fatalf("%d prompts, golden %d", len(prompts), len(want.Prompts))
			}
			for i, p := range prompts {
				name := p.(map[string]any)["name"].(string)
				if got := hashOf("mcpreg-pin-v2/prompt", p); name != want.Prompts[i].Name || got != want.Prompts[i].Hash {
					t.Errorf("prompt %d: %q %s, golden %q %s", i, name, got, want.Prompts[i].Name, want.Prompts[i].Hash)
				}
			}
			checkAgainstCompute(t, data, want)
		})
	}
}

// TestIndependentV1 recomputes the v1 vectors too.
func TestIndependentV1(t *testing.T) {
	for _, in := range independentInputs(t, "pin/*.json") {
		t.Run(filepath.Base(in), func(t *testing.T) {
			checkV1Hashes(t, decodeNumbers(t, readAll(t, in)), readGolden(t, in))
		})
	}
}

// checkAgainstCompute checks that the v1 hashes in the v2 pins are exactly
// what pin.Compute returns for the same file.
func checkAgainstCompute(t *testing.T, data []byte, want goldenPins) {
	t.Helper()
	l, err := pin.ParseToolsList(data, pin.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := pin.Compute(l)
	if err != nil {
		t.Fatal(err)
	}
	if p.ToolDefinitionHash != want.ToolDefinitionHash || p.SchemaHash != want.SchemaHash || p.InstructionsHash != want.InstructionsHash {
		t.Errorf("v1 hashes in the v2 pins differ from pin.Compute: %+v", p)
	}
	if len(p.Tools) != len(want.Tools) {
		t.Fatalf("pin.Compute lists %d tools, golden %d", len(p.Tools), len(want.Tools))
	}
	for i, tp := range p.Tools {
		if tp.Name != want.Tools[i].Name || tp.Hash != want.Tools[i].Hash {
			t.Errorf("tool %d: pin.Compute %+v, golden %+v", i, tp, want.Tools[i])
		}
	}
}

func checkV1Hashes(t *testing.T, doc any, want goldenPins) {
	t.Helper()
	tools, instructions := toolsOf(doc)
	byName(tools, "name")
	if len(tools) != len(want.Tools) {
		t.Fatalf("%d tools, golden %d", len(tools), len(want.Tools))
	}
	var defs, schemas []any
	for i, tool := range tools {
		proj := project(tool, "name", "title", "description", "inputSchema", "outputSchema", "annotations")
		defs = append(defs, proj)
		schemas = append(schemas, project(tool, "name", "inputSchema", "outputSchema"))
		if got := hashOf("mcpreg-pin-v1/tool", proj); got != want.Tools[i].Hash {
			t.Errorf("tool %q hash = %s, golden %s", tool["name"], got, want.Tools[i].Hash)
		}
	}
	for what, got := range map[string][2]string{
		"toolDefinitionHash": {hashOf("mcpreg-pin-v1/tools", defs), want.ToolDefinitionHash},
		"schemaHash":         {hashOf("mcpreg-pin-v1/schema", schemas), want.SchemaHash},
		"instructionsHash":   {hashOf("mcpreg-pin-v1/instructions", instructions), want.InstructionsHash},
	} {
		if got[0] != got[1] {
			t.Errorf("%s = %s, golden %s", what, got[0], got[1])
		}
	}
}

// toolsOf returns the tools and the instructions (nil when absent) of a
// tools file in either form.
func toolsOf(doc any) ([]map[string]any, any) {
	if arr, ok := doc.([]any); ok {
		return objects(arr), nil
	}
	m := doc.(map[string]any)
	return objects(m["tools"].([]any)), m["instructions"]
}

// promptsValue is the array the prompts hash covers.
func promptsValue(doc any) []any {
	ps := member(doc, "prompts")
	byName(ps, "name")
	out := []any{}
	for _, p := range ps {
		out = append(out, project(p, "name", "title", "description", "arguments", "messages"))
	}
	return out
}

// resourcesValue is the object the resources hash covers.
func resourcesValue(doc any) map[string]any {
	rs, ts := member(doc, "resources"), member(doc, "resourceTemplates")
	byName(rs, "uri")
	byName(ts, "uriTemplate")
	resources, templates := []any{}, []any{}
	for _, r := range rs {
		resources = append(resources, project(r, "uri", "name", "title", "description", "mimeType"))
	}
	for _, tm := range ts {
		templates = append(templates, project(tm, "uriTemplate", "name", "title", "description", "mimeType"))
	}
	return map[string]any{"resources": resources, "resourceTemplates": templates}
}

// member returns the array of objects called name; absent is empty.
func member(doc any, name string) []map[string]any {
	m, ok := doc.(map[string]any)
	if !ok || m[name] == nil {
		return nil
	}
	return objects(m[name].([]any))
}

func objects(arr []any) []map[string]any {
	out := make([]map[string]any, len(arr))
	for i, v := range arr {
		out[i] = v.(map[string]any)
	}
	return out
}

// byName sorts objects by the UTF-8 bytes of their key member.
func byName(objs []map[string]any, key string) {
	slices.SortFunc(objs, func(a, b map[string]any) int {
		return bytes.Compare([]byte(a[key].(string)), []byte(b[key].(string)))
	})
}

// project keeps the members of obj named in keep that are present.
func project(obj map[string]any, keep ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keep {
		if v, ok := obj[k]; ok {
			out[k] = v
		}
	}
	return out
}

func decodeNumbers(t *testing.T, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// independentInputs lists the input files of the valid vectors matching
// pattern under testdata.
func independentInputs(t *testing.T, pattern string) []string {
	t.Helper()
	var in []string
	for _, f := range testkit.Files(t, pattern) {
		if !strings.HasSuffix(f, ".pins.json") {
			in = append(in, f)
		}
	}
	return in
}

func readGolden(t *testing.T, in string) goldenPins {
	t.Helper()
	var p goldenPins
	if err := json.Unmarshal(readAll(t, strings.TrimSuffix(in, ".json")+".pins.json"), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
