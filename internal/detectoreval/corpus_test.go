package detectoreval_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/detectoreval"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/testkit"
	"github.com/mcpreg/mcpreg/pin"
)

var dir = testkit.TestdataDir("poisoning")

func load(t *testing.T) *detectoreval.Corpus {
	t.Helper()
	c, err := detectoreval.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The corpus is what the issue asks for: at least 300 attacks and 300
// benign tools, every case well formed (Load checks each), and a split
// frozen as committed with at least 30% held out and 10 held-out attacks
// per family and language.
func TestCorpusAndFrozenSplit(t *testing.T) {
	c := load(t)
	s, err := detectoreval.ReadSplit(filepath.Join(dir, "split.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckFrozen(s); err != nil {
		t.Fatal(err)
	}
	r, err := c.Evaluate(func(*pin.ToolsList) []finding.Finding { return nil })
	if err != nil {
		t.Fatal(err)
	}
	devA, devB := r.Development.Totals()
	heldA, heldB := r.HeldOut.Totals()
	if devA.N+heldA.N < 300 || devB.N+heldB.N < 300 {
		t.Errorf("%d attacks and %d benign tools; the corpus needs at least 300 of each", devA.N+heldA.N, devB.N+heldB.N)
	}
	dev, held := c.Sizes()
	if detectoreval.Rate(held, dev+held) < 0.30 {
		t.Errorf("%d of %d cases held out, want at least 30%%", held, dev+held)
	}
	for fam := range detectoreval.Families {
		for _, lang := range detectoreval.Languages {
			if n := r.HeldOut.Attacks[fam][lang].N; n < 10 {
				t.Errorf("%s/%s: %d held-out cases, want at least 10", fam, lang, n)
			}
		}
	}
}

// Development never hands out a held-out case.
func TestDevelopmentExcludesHeldOut(t *testing.T) {
	for _, cs := range load(t).Development() {
		if detectoreval.HeldOut(cs.ID) {
			t.Fatalf("Development returned held-out case %s", cs.ID)
		}
	}
}

// ratchet is the development-split figures the detectors reached; they
// may not get worse (testdata/poisoning/ratchet.json).
type ratchet struct {
	RecallMedium float64 `json:"recallMedium"`
	FPRMedium    float64 `json:"fprMedium"`
}

func TestRatchet(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(dir, "ratchet.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want ratchet
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	r, err := load(t).Evaluate(diffreview.PoisoningModel)
	if err != nil {
		t.Fatal(err)
	}
	a, b := r.Development.Totals()
	recall, fpr := detectoreval.Rate(a.Medium, a.N), detectoreval.Rate(b.Medium, b.N)
	if recall < want.RecallMedium-1e-9 || fpr > want.FPRMedium+1e-9 {
		t.Fatalf("development split: recall %.4f (ratchet %.4f), FPR %.4f (ratchet %.4f): the detectors got worse",
			recall, want.RecallMedium, fpr, want.FPRMedium)
	}
	if recall > want.RecallMedium+0.005 || fpr < want.FPRMedium-0.005 {
		t.Logf("development split improved: recall %.4f, FPR %.4f; raise testdata/poisoning/ratchet.json", recall, fpr)
	}
}
