package contract

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: Parse never panics, fails only with its two error kinds, and
// for an accepted document normalising and hashing are deterministic, the
// served form satisfies the normalised schema and Check and Widenings run.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(vectorDir, "*", "contract*.*"))
	invalids, _ := filepath.Glob(filepath.Join(vectorDir, "invalid", "*.*"))
	for _, s := range append(seeds, invalids...) {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(minimalYAML))
	f.Add([]byte("a: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, Limits{})
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		tools := append(c.ToolNames(), "extra")
		n1, n2 := c.Normalize(tools), c.Normalize(tools)
		h1, err1 := n1.Hash()
		h2, err2 := n2.Hash()
		if err1 != nil || err2 != nil || h1 != h2 || !bytes.Equal(n1.JSON(), n2.JSON()) {
			t.Fatalf("normalisation not deterministic: %v %v %s %s", err1, err2, h1, h2)
		}
		again, err := Parse(c.InputJSON(), Limits{MaxBytes: 1 << 20})
		if err != nil {
			t.Fatalf("InputJSON does not parse: %v", err)
		}
		if h3, _ := again.Normalize(tools).Hash(); h3 != h1 {
			t.Fatalf("InputJSON gives another hash: %s %s", h3, h1)
		}
		if _, err := DecodeNormalized(n1.JSON()); err != nil {
			t.Fatalf("served form invalid: %v", err)
		}
		Check(c, []ToolFacts{{Name: "extra", Raw: []byte(`{"name":"extra"}`)}}, CheckOptions{})
		if ws := Widenings(n1, n1); len(ws) != 0 {
			t.Fatalf("a contract widens itself: %v", ws)
		}
		Widenings(Default().Normalize(tools), n1)
	})
}
