package pin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// vectorDir holds the public test vectors, at the repository root.
var vectorDir = testkit.TestdataDir("pin")

// vectorInputs lists the input tools files of the valid vectors.
func vectorInputs(t testing.TB) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(vectorDir, "*.json"))
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
		t.Fatal("no vectors found")
	}
	return in
}

func TestGoldenVectors(t *testing.T) {
	for _, in := range vectorInputs(t) {
		base := strings.TrimSuffix(in, ".json")
		t.Run(filepath.Base(base), func(t *testing.T) {
			c, p := computeVector(t, in)
			assertGolden(t, base+".pins.json", marshalPins(t, p))
			assertGolden(t, base+".canonical.txt", canonicalText(filepath.Base(in), c, p))
		})
	}
}

// computeVector parses, computes and cross-checks one vector file.
func computeVector(t *testing.T, path string) (*canonicalList, Pins) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseToolsList(data, Limits{})
	if err != nil {
		t.Fatalf("ParseToolsList: %v", err)
	}
	c, err := canonicalize(l)
	if err != nil {
		t.Fatalf("canonicalize: %v", err)
	}
	p, err := Compute(l)
	if err != nil {
		t.Fatalf("Compute: %v", err)
	}
	return c, p
}

func marshalPins(t *testing.T, p Pins) []byte {
	t.Helper()
	b, err := json.Marshal(p, jsontext.WithIndent("  "))
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// canonicalText lists every preimage hashed for a vector, for host
// implementers to compare with their own.
func canonicalText(name string, c *canonicalList, p Pins) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s preimages for %s\n", SpecVersion, name)
	b.WriteString("# Each entry: a \"## <what> <hash>\" line, then the preimage, which is the next\n")
	b.WriteString("# two lines joined by one LF with no trailing LF: the domain line and the JCS text.\n")
	for i, tool := range c.tools {
		q, _ := jsontext.AppendQuote(nil, tool.name)
		writeEntry(&b, "tool "+string(q), p.Tools[i].Hash, domainTool, tool.projection)
	}
	writeEntry(&b, "toolDefinitionHash", p.ToolDefinitionHash, domainTools, c.definitions())
	writeEntry(&b, "schemaHash", p.SchemaHash, domainSchema, c.schemas())
	writeEntry(&b, "instructionsHash", p.InstructionsHash, domainInstructions, c.instructions)
	return b.Bytes()
}

func writeEntry(b *bytes.Buffer, what, hash, domain string, jcs []byte) {
	fmt.Fprintf(b, "\n## %s %s\n%s\n%s\n", what, hash, domain, jcs)
}

func assertGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	testkit.Golden(t, path, got)
}

// TestGoldenCanonicalTextHashes checks the canonical.txt files the way a host
// would: SHA-256 of each listed preimage must equal the listed hash.
func TestGoldenCanonicalTextHashes(t *testing.T) {
	for _, in := range vectorInputs(t) {
		path := strings.TrimSuffix(in, ".json") + ".canonical.txt"
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		entries := strings.Split(string(data), "\n## ")[1:]
		if len(entries) < 3 {
			t.Fatalf("%s: %d entries", path, len(entries))
		}
		for _, e := range entries {
			lines := strings.SplitN(strings.TrimSuffix(e, "\n"), "\n", 3)
			want := lines[0][strings.LastIndexByte(lines[0], ' ')+1:]
			sum := sha256.Sum256([]byte(lines[1] + "\n" + lines[2]))
			if got := "sha256:" + hex.EncodeToString(sum[:]); got != want {
				t.Errorf("%s: entry %q hashes to %s", path, lines[0], got)
			}
		}
	}
}

// TestGoldenRelations checks what the vectors are meant to show.
func TestGoldenRelations(t *testing.T) {
	pins := map[string]Pins{}
	for _, in := range vectorInputs(t) {
		_, p := computeVector(t, in)
		pins[strings.TrimSuffix(filepath.Base(in), ".json")] = p
	}
	same := func(a, b string) bool { return fmt.Sprint(pins[a]) == fmt.Sprint(pins[b]) }
	if !same("basic", "basic-reformatted") {
		t.Error("basic-reformatted pins differ from basic")
	}
	if !same("instructions-absent", "instructions-null") {
		t.Error("absent and null instructions pin differently")
	}
	absent := pins["instructions-absent"].InstructionsHash
	if absent == pins["instructions-empty"].InstructionsHash || absent == pins["instructions-string"].InstructionsHash ||
		pins["instructions-empty"].InstructionsHash == pins["instructions-string"].InstructionsHash {
		t.Error("absent, empty and non-empty instructions must pin differently")
	}
	bare, basic := pins["bare-array"], pins["basic"]
	if bare.InstructionsHash != absent {
		t.Error("a bare array must pin instructions as absent")
	}
	bare.InstructionsHash = basic.InstructionsHash
	if fmt.Sprint(bare) != fmt.Sprint(basic) {
		t.Error("bare-array tool pins differ from basic")
	}
}

func TestInvalidVectors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(vectorDir, "invalid", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid vectors: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseToolsList(data, Limits{})
			var e *Error
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &e) {
				t.Fatalf("ParseToolsList error = %v, want *Error matching ErrInvalid", err)
			}
			t.Log(err)
		})
	}
}
