package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/testkit"
	"github.com/mcpreg/mcpreg/pin"
)

func fixturePins(t *testing.T, path string) pin.PinsV2 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := pin.ParseToolsList(data, pin.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	p, err := pin.ComputeV2(list)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The pin command needs neither a reachable service nor a token, whatever
// the environment says.
var offlineEnv = map[string]string{EnvServer: "not a url", EnvToken: ""}

func TestPinJSONEqualsCompute(t *testing.T) {
	want := fixturePins(t, toolsFixture)
	r := execute(t, offlineEnv, "", "pin", "--output", "json", toolsFixture)
	if r.err != nil {
		t.Fatal(r.err)
	}
	var got pin.PinsV2
	dec := json.NewDecoder(strings.NewReader(r.out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("output %s: %v", r.out, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pin output %+v\nwant %+v", got, want)
	}
	if !strings.HasPrefix(r.out, "{\n  \"toolDefinitionHash\": ") || !strings.Contains(r.out, `"name": "a<b>&c"`) {
		t.Fatalf("unexpected layout or escaping:\n%s", r.out)
	}
}

func TestPinTable(t *testing.T) {
	want := fixturePins(t, toolsFixture)
	r := execute(t, offlineEnv, "", "pin", toolsFixture)
	if r.err != nil {
		t.Fatal(r.err)
	}
	lines := strings.Split(r.out, "\n")
	for i, h := range []string{want.ToolDefinitionHash, want.SchemaHash, want.InstructionsHash, want.PromptsHash, want.ResourcesHash} {
		if !strings.HasSuffix(lines[i+1], h) {
			t.Errorf("line %d = %q, want it to end in %s", i+1, lines[i+1], h)
		}
	}
	for _, tp := range want.Tools {
		if !containsLine(r.out, tp.Name, tp.Hash) {
			t.Errorf("no line with %q and %s in\n%s", tp.Name, tp.Hash, r.out)
		}
	}
}

func containsLine(out string, fields ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		if reflect.DeepEqual(strings.Fields(l), fields) {
			return true
		}
	}
	return false
}

func TestPinStdin(t *testing.T) {
	data, err := os.ReadFile(toolsFixture)
	if err != nil {
		t.Fatal(err)
	}
	fromFile := execute(t, offlineEnv, "", "pin", "-o", "json", toolsFixture)
	fromStdin := execute(t, offlineEnv, string(data), "pin", "-o", "json", "-")
	if fromFile.err != nil || fromStdin.err != nil {
		t.Fatal(fromFile.err, fromStdin.err)
	}
	if fromFile.out != fromStdin.out {
		t.Fatalf("stdin output differs:\n%s\n%s", fromStdin.out, fromFile.out)
	}
}

// The CLI reproduces the specification's golden vectors byte for byte:
// the v1 ones with --spec mcpreg-pin-v1, the v2 ones by default.
func TestPinGoldenVectors(t *testing.T) {
	for _, set := range []struct {
		glob string
		args []string
	}{
		{"pin/*.pins.json", []string{"--spec", pin.SpecVersion}},
		{"pin/v2/*.pins.json", nil},
	} {
		for _, wantPath := range testkit.Files(t, set.glob) {
			t.Run(strings.TrimPrefix(wantPath, filepath.Dir(filepath.Dir(wantPath))+"/"), func(t *testing.T) {
				want, err := os.ReadFile(wantPath)
				if err != nil {
					t.Fatal(err)
				}
				args := append([]string{"pin", "-o", "json", strings.TrimSuffix(wantPath, ".pins.json") + ".json"}, set.args...)
				r := execute(t, offlineEnv, "", args...)
				if r.err != nil {
					t.Fatal(r.err)
				}
				if strings.TrimSpace(r.out) != strings.TrimSpace(string(want)) {
					t.Fatalf("got\n%s\nwant\n%s", r.out, want)
				}
			})
		}
	}
}

func TestPinRefusesUnknownSpec(t *testing.T) {
	r := execute(t, offlineEnv, "", "pin", "--spec", "mcpreg-pin-v3", toolsFixture)
	if r.err == nil || !strings.Contains(r.err.Error(), "mcpreg-pin-v3") {
		t.Fatalf("error = %v, want one naming the unknown specification", r.err)
	}
}

func TestPinRejectsInvalidToolsFile(t *testing.T) {
	tests := []struct{ name, body, wantErr string }{
		{"duplicate member", `{"tools":[{"name":"a","inputSchema":{"type":"object","type":"string"}}]}`, "/tools/0/inputSchema"},
		{"duplicate tool", `[{"name":"a"},{"name":"a"}]`, "a"},
		{"not json", `tools: []`, "standard input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, offlineEnv, tt.body, "pin", "-")
			if r.err == nil || !strings.Contains(r.err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one mentioning %q", r.err, tt.wantErr)
			}
			if r.out != "" {
				t.Fatalf("printed pins for an invalid file: %s", r.out)
			}
		})
	}
	r := execute(t, offlineEnv, "", "pin", "testdata/missing.json")
	if r.err == nil || !strings.Contains(r.err.Error(), "missing.json") {
		t.Fatalf("error = %v", r.err)
	}
}
