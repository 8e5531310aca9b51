package contract

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// vectorDir holds the public test vectors, at the repository root.
var vectorDir = testkit.TestdataDir("contract")

// TestGoldenVectors checks every valid vector: each directory holds one
// contract in several forms (contract*.yaml, contract*.json: YAML and JSON,
// different key orders; none for the default contract), the snapshot's
// tool names (tools.txt), the served form (normalized.json) and its hash
// (contract_hash.txt). Every form must give the same bytes and hash.
func TestGoldenVectors(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(vectorDir, "*", "tools.txt"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no vectors found (%v)", err)
	}
	for _, tools := range dirs {
		dir := filepath.Dir(tools)
		t.Run(filepath.Base(dir), func(t *testing.T) { checkVector(t, dir) })
	}
}

func checkVector(t *testing.T, dir string) {
	names := strings.Fields(string(readFile(t, filepath.Join(dir, "tools.txt"))))
	inputs := vectorInputs(t, dir)
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			c := Default()
			if in != "" {
				var err error
				if c, err = Parse(readFile(t, in), Limits{}); err != nil {
					t.Fatalf("Parse: %v", err)
				}
			}
			n := c.Normalize(names)
			hash, err := n.Hash()
			if err != nil {
				t.Fatal(err)
			}
			assertGolden(t, filepath.Join(dir, "normalized.json"), n.JSON())
			assertGolden(t, filepath.Join(dir, "contract_hash.txt"), []byte(hash+"\n"))
			if _, err := DecodeNormalized(n.JSON()); err != nil {
				t.Errorf("served form does not satisfy the normalised schema: %v", err)
			}
		})
	}
}

// vectorInputs lists a vector's contract files; "" stands for Default().
func vectorInputs(t *testing.T, dir string) []string {
	yamls, _ := filepath.Glob(filepath.Join(dir, "contract*.yaml"))
	jsons, _ := filepath.Glob(filepath.Join(dir, "contract*.json"))
	in := slices.Concat(yamls, jsons)
	if len(in) == 0 {
		return []string{""}
	}
	if len(yamls) == 0 || len(jsons) == 0 {
		t.Fatalf("%s: want the contract in YAML and in JSON", dir)
	}
	return in
}

// TestInvalidVectors checks that every document under invalid/ is
// rejected with exactly the violations in its .violations.txt.
func TestInvalidVectors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(vectorDir, "invalid", "*.*"))
	var n int
	for _, f := range files {
		if strings.HasSuffix(f, ".violations.txt") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := Parse(readFile(t, f), Limits{})
			var verr *ValidationError
			if !errors.As(err, &verr) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse: want *ValidationError, got %v", err)
			}
			var b strings.Builder
			for _, v := range verr.Violations {
				b.WriteString(v.String() + "\n")
			}
			assertGolden(t, strings.TrimSuffix(f, filepath.Ext(f))+".violations.txt", []byte(b.String()))
		})
	}
	if n == 0 {
		t.Fatal("no invalid vectors found")
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertGolden compares got with the golden file, or rewrites the file
// under -update.
func assertGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	testkit.Golden(t, path, got)
}
