package pin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// vectorDirV2 holds the public mcpreg-pin-v2 test vectors.
var vectorDirV2 = testkit.TestdataDir("pin", "v2")

// vectorInputsV2 lists the input tools files of the valid v2 vectors.
func vectorInputsV2(t testing.TB) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(vectorDirV2, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in []string
	for _, f := range all {
		if !strings.HasSuffix(f, ".pins.json") {
			in = append(in, f)
		}
	}
	if len(in) == 0 {
		t.Fatal("no v2 vectors found")
	}
	return in
}

func TestGoldenVectorsV2(t *testing.T) {
	for _, in := range vectorInputsV2(t) {
		base := strings.TrimSuffix(in, ".json")
		t.Run(filepath.Base(base), func(t *testing.T) {
			c, p := computeVectorV2(t, in)
			assertGolden(t, base+".pins.json", marshalPinsV2(t, p))
			assertGolden(t, base+".canonical.txt", canonicalTextV2(filepath.Base(in), c, p))
		})
	}
}

// computeVectorV2 parses, computes and cross-checks one v2 vector file:
// its v1 hashes must be exactly what Compute returns.
func computeVectorV2(t *testing.T, path string) (*canonicalListV2, PinsV2) {
	t.Helper()
	l, err := ParseToolsList(readFile(t, path), Limits{})
	if err != nil {
		t.Fatalf("ParseToolsList: %v", err)
	}
	c, err := canonicalizeV2(l)
	if err != nil {
		t.Fatalf("canonicalizeV2: %v", err)
	}
	p, err := ComputeV2(l)
	if err != nil {
		t.Fatalf("ComputeV2: %v", err)
	}
	v1, err := Compute(l)
	if err != nil {
		t.Fatalf("Compute: %v", err)
	}
	if !reflect.DeepEqual(p.Pins, v1) {
		t.Fatalf("v1 hashes of ComputeV2 differ from Compute:\n%+v\n%+v", p.Pins, v1)
	}
	return c, p
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func marshalPinsV2(t *testing.T, p PinsV2) []byte {
	t.Helper()
	b, err := json.Marshal(p, jsontext.WithIndent("  "))
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// canonicalTextV2 lists every preimage hashed for a v2 vector.
func canonicalTextV2(name string, c *canonicalListV2, p PinsV2) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s preimages for %s\n", SpecVersionV2, name)
	b.WriteString("# Each entry: a \"## <what> <hash>\" line, then the preimage, which is the next\n")
	b.WriteString("# two lines joined by one LF with no trailing LF: the domain line and the JCS text.\n")
	b.WriteString("# The v1 hashes keep their mcpreg-pin-v1 domains.\n")
	for i, tool := range c.tools {
		q, _ := jsontext.AppendQuote(nil, tool.name)
		writeEntry(&b, "tool "+string(q), p.Tools[i].Hash, domainTool, tool.projection)
	}
	writeEntry(&b, "toolDefinitionHash", p.ToolDefinitionHash, domainTools, c.definitions())
	writeEntry(&b, "schemaHash", p.SchemaHash, domainSchema, c.schemas())
	writeEntry(&b, "instructionsHash", p.InstructionsHash, domainInstructions, c.instructions)
	writeEntry(&b, "promptsHash", p.PromptsHash, domainPrompts, c.promptsText())
	for i, e := range c.prompts {
		q, _ := jsontext.AppendQuote(nil, e.key)
		writeEntry(&b, "prompt "+string(q), p.Prompts[i].Hash, domainPrompt, e.projection)
	}
	writeEntry(&b, "resourcesHash", p.ResourcesHash, domainResources, c.resourcesText())
	return b.Bytes()
}

// TestGoldenCanonicalTextHashesV2 checks the v2 canonical.txt files the way
// a host would: SHA-256 of each listed preimage must equal the listed hash,
// and the file lists the hashes of the pins file.
func TestGoldenCanonicalTextHashesV2(t *testing.T) {
	for _, in := range vectorInputsV2(t) {
		base := strings.TrimSuffix(in, ".json")
		entries := strings.Split(string(readFile(t, base+".canonical.txt")), "\n## ")[1:]
		if len(entries) < 5 {
			t.Fatalf("%s: %d entries", base, len(entries))
		}
		listed := map[string]string{}
		for _, e := range entries {
			lines := strings.SplitN(strings.TrimSuffix(e, "\n"), "\n", 3)
			what, want := lines[0][:strings.LastIndexByte(lines[0], ' ')], lines[0][strings.LastIndexByte(lines[0], ' ')+1:]
			sum := sha256.Sum256([]byte(lines[1] + "\n" + lines[2]))
			if got := "sha256:" + hex.EncodeToString(sum[:]); got != want {
				t.Errorf("%s: entry %q hashes to %s", base, lines[0], got)
			}
			listed[what] = want
		}
		var p PinsV2
		if err := json.Unmarshal(readFile(t, base+".pins.json"), &p); err != nil {
			t.Fatal(err)
		}
		if listed["promptsHash"] != p.PromptsHash || listed["resourcesHash"] != p.ResourcesHash {
			t.Errorf("%s: canonical.txt and pins.json disagree", base)
		}
	}
}

// TestGoldenRelationsV2 checks what the v2 vectors are meant to show.
func TestGoldenRelationsV2(t *testing.T) {
	pins := map[string]PinsV2{}
	for _, in := range vectorInputsV2(t) {
		_, p := computeVectorV2(t, in)
		pins[strings.TrimSuffix(filepath.Base(in), ".json")] = p
	}
	if !reflect.DeepEqual(pins["basic"], pins["basic-reformatted"]) {
		t.Error("basic-reformatted pins differ from basic")
	}
	for _, name := range []string{"empty", "bare-array"} {
		if !reflect.DeepEqual(pins[name], pins["absent"]) {
			t.Errorf("%s pins differ from absent: absent members must pin as empty arrays", name)
		}
	}
	// The v1 hashes of a v2 vector are the v1 vector's with the same tools.
	for v2, v1 := range map[string]string{"basic": "basic"} {
		var want Pins
		if err := json.Unmarshal(readFile(t, filepath.Join(vectorDir, v1+".pins.json")), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pins[v2].Pins, want) {
			t.Errorf("v1 hashes of v2/%s differ from %s.pins.json", v2, v1)
		}
	}
	if pins["templates-only"].ResourcesHash == pins["empty"].ResourcesHash {
		t.Error("a template alone must move resourcesHash")
	}
}

func TestInvalidVectorsV2(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(vectorDirV2, "invalid", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid v2 vectors: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := ParseToolsList(readFile(t, f), Limits{})
			var e *Error
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &e) {
				t.Fatalf("ParseToolsList error = %v, want *Error matching ErrInvalid", err)
			}
			t.Log(err)
		})
	}
}
