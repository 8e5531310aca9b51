package detectoreval_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpreg/mcpreg/internal/detectoreval"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/textclf"
)

// modelFile is the committed word model.
var modelFile = filepath.Join("..", "diffreview", "textmodel.json")

// The committed word model was trained on today's development split: a
// corpus edit that reaches the training split fails here until the model
// is retrained (make detector-model).
func TestCommittedModelMatchesCorpus(t *testing.T) {
	c := load(t)
	if got, want := diffreview.TextModel().TrainingSplit, c.TrainingHash(); got != want {
		t.Fatalf("the committed word model was trained on %s, the development split is now %s: run make detector-model", got, want)
	}
}

// Training is deterministic: retraining on the corpus writes the
// committed bytes.
func TestModelRetrainsToCommitted(t *testing.T) {
	if raceEnabled {
		t.Skip("retraining under the race detector takes half a minute; make test runs this test without it")
	}
	c := load(t)
	m, err := c.Train(diffreview.ClassifierFeatures, diffreview.ClassifierClassNames(), detectoreval.ModelOptions)
	if err != nil {
		t.Fatal(err)
	}
	got, err := textclf.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("retraining gave a different model (%d bytes, committed %d): run make detector-model and commit the result", len(got), len(want))
	}
}

// The word model's classes are the corpus families, and each reports a
// kind its family maps to, so "caught by the right kind" holds for it.
func TestModelClassesAreFamilies(t *testing.T) {
	classes := diffreview.ClassifierClasses
	if len(classes)-1 != len(detectoreval.Families) || classes[0].Kind != "" {
		t.Fatalf("classes %v, families %v", diffreview.ClassifierClassNames(), detectoreval.Families)
	}
	for _, c := range classes[1:] {
		kinds, ok := detectoreval.Families[c.Name]
		if !ok || !slices.Contains(kinds, c.Kind) {
			t.Errorf("class %s reports %s; the family's kinds are %v", c.Name, c.Kind, kinds)
		}
	}
}
