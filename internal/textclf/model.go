package textclf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
)

// Format names the model file's layout.
const Format = "mcpreg-textclf-v1"

// Model is a trained classifier as committed.
type Model struct {
	Format string `json:"format"`
	// TrainingSplit is the hash of the training cases (TrainingHash),
	// checked against the corpus by a test.
	TrainingSplit string `json:"trainingSplit"`
	// Classes names the classes; class 0 is the benign one.
	Classes []string `json:"classes"`
	// Threshold is the probability of not being benign from which a text
	// is flagged, chosen by cross-validation on the training cases.
	Threshold float64 `json:"threshold"`
	// CrossValidation reports the out-of-fold figures at Threshold.
	CrossValidation Figures              `json:"crossValidation"`
	Bias            []float64            `json:"bias"`
	Weights         map[string][]float64 `json:"weights,omitempty"`
}

// Figures are recall and false-positive rate of out-of-fold predictions.
type Figures struct {
	Recall float64 `json:"recall"`
	FPR    float64 `json:"fpr"`
}

// Parse reads a model file and checks its shape.
func Parse(data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("textclf: %w", err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("textclf: format %q, want %q", m.Format, Format)
	}
	if len(m.Classes) < 2 || len(m.Bias) != len(m.Classes) {
		return nil, errors.New("textclf: a model needs two classes or more and a bias for each")
	}
	for f, w := range m.Weights {
		if len(w) != len(m.Classes) {
			return nil, fmt.Errorf("textclf: feature %q has %d weights, want %d", f, len(w), len(m.Classes))
		}
	}
	return &m, nil
}

// Scores are the class scores (logits) of a text with these features.
func (m *Model) Scores(features []string) []float64 {
	z := slices.Clone(m.Bias)
	for _, f := range features {
		if w, ok := m.Weights[f]; ok {
			for c := range z {
				z[c] += w[c]
			}
		}
	}
	return z
}

// Verdict is a classification of a text by its weightiest sentence: the
// sentence most likely not benign, the probability that it is not, and
// its most likely class other than benign.
type Verdict struct {
	Sentence  int
	Class     int
	Malicious float64
	Flagged   bool
}

// Classify rates a text given as the features of each of its sentences.
func (m *Model) Classify(sentences [][]string) Verdict {
	v := Verdict{Sentence: -1}
	for i, feats := range sentences {
		if class, mal := m.Rate(feats); v.Sentence < 0 || mal > v.Malicious {
			v.Sentence, v.Class, v.Malicious = i, class, mal
		}
	}
	v.Flagged = v.Sentence >= 0 && v.Malicious >= m.Threshold
	return v
}

// Rate rates one sentence: its most likely class other than benign, and
// the probability that it is not benign.
func (m *Model) Rate(features []string) (class int, malicious float64) {
	p := softmax(m.Scores(features))
	class = 1
	for c := 2; c < len(p); c++ {
		if p[c] > p[class] {
			class = c
		}
	}
	return class, 1 - p[0]
}

// Contribution is how much features push a text from benign towards
// class c.
func (m *Model) Contribution(features []string, c int) float64 {
	var sum float64
	for _, f := range features {
		if w, ok := m.Weights[f]; ok {
			sum += w[c] - w[0]
		}
	}
	return sum
}

// softmax turns scores into probabilities.
func softmax(z []float64) []float64 {
	top := slices.Max(z)
	p := make([]float64, len(z))
	var sum float64
	for c, v := range z {
		p[c] = math.Exp(v - top)
		sum += p[c]
	}
	for c := range p {
		p[c] /= sum
	}
	return p
}

// Marshal writes m as committed: JSON with one feature per line, in
// sorted order, ending in a newline.
func Marshal(m *Model) ([]byte, error) {
	head := *m
	head.Weights = nil
	b, err := json.Marshal(head)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Write(b[:len(b)-1]) // without the closing brace
	out.WriteString(`,"weights":{`)
	for i, f := range slices.Sorted(maps.Keys(m.Weights)) {
		if i > 0 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(f)
		w, _ := json.Marshal(m.Weights[f])
		out.WriteString("\n")
		out.Write(k)
		out.WriteByte(':')
		out.Write(w)
	}
	out.WriteString("\n}}\n")
	return out.Bytes(), nil
}
