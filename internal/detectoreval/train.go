package detectoreval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/internal/textclf"
	"github.com/mcpreg/mcpreg/pin"
)

// ModelOptions are the options `make detector-model` trains with.
var ModelOptions = textclf.Options{Epochs: 150, Rate: 0.5, L2: 1e-4, MinCount: 2, MaxDF: 0.2, Rounds: 2, Folds: 5, TargetFPR: 0.045}

// TrainingHash is the hash of the training split: SHA-256 over the
// development cases' ids and line digests, in id order.
func (c *Corpus) TrainingHash() string {
	h := sha256.New()
	for _, cs := range sortedByID(c.dev) {
		fmt.Fprintf(h, "%s %s\n", cs.ID, cs.Digest())
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Train fits the word model on the development cases alone: features
// turns a case into one feature set per unit, classes[0] is benign and
// the others are family names. A held-out case never reaches the trainer;
// Train refuses to go on if one would.
func (c *Corpus) Train(features func(*pin.ToolsList) [][][]string, classes []string, o textclf.Options) (*textclf.Model, error) {
	var examples []textclf.Example
	for _, cs := range sortedByID(c.dev) {
		if HeldOut(cs.ID) {
			return nil, fmt.Errorf("detectoreval: held-out case %s offered for training", cs.ID)
		}
		class := 0
		if cs.Label == Malicious {
			class = slices.Index(classes, cs.Family)
			if class < 1 {
				return nil, fmt.Errorf("detectoreval: family %s of %s is not a class of the model", cs.Family, cs.ID)
			}
		}
		l, err := cs.List()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cs.ID, err)
		}
		for _, f := range features(l) {
			examples = append(examples, textclf.Example{ID: cs.ID, Sentences: f, Class: class, Group: cs.Language})
		}
	}
	o.Classes = classes
	return textclf.Train(examples, c.TrainingHash(), o)
}

// sortedByID is cases in id order.
func sortedByID(cases []Case) []Case {
	return slices.SortedFunc(slices.Values(cases), func(a, b Case) int { return strings.Compare(a.ID, b.ID) })
}

// CrossValidate measures a detector with a word model on the development
// split without testing the model on what it learnt: each fold of the
// development cases is evaluated with a model trained on the other folds
// (the folds Train uses to choose its threshold).
func (c *Corpus) CrossValidate(features func(*pin.ToolsList) [][][]string, classes []string, o textclf.Options,
	detect func(*textclf.Model) Detector) (SplitReport, error) {
	total := newSplitReport()
	for k := range o.Folds {
		var train, test []Case
		for _, cs := range c.dev {
			if textclf.Fold(cs.ID, o.Folds) == k {
				test = append(test, cs)
			} else {
				train = append(train, cs)
			}
		}
		m, err := (&Corpus{dev: train}).Train(features, classes, o)
		if err != nil {
			return total, err
		}
		r, err := evaluate(test, detect(m))
		if err != nil {
			return total, err
		}
		total.merge(r)
	}
	return total, nil
}
