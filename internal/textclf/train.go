package textclf

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// CuePrefix starts a feature that is no word but a cue the caller derived
// from the sentence (what it does rather than how it is worded). MaxDF
// keeps cues: a frequent cue is not a matter of style.
const CuePrefix = "#"

// Example is one training case: a text (a tool definition, a server's
// instructions) given as the features of each sentence, and its class.
type Example struct {
	ID        string
	Sentences [][]string
	Class     int
	// Group is the example's language: within a group, benign and
	// malicious examples weigh the same.
	Group string
}

// instance is one text or sentence the model is fitted to.
type instance struct {
	features []string
	class    int
	example  int
	group    string
}

// Options tune training.
type Options struct {
	Classes []string // class 0 is benign
	Epochs  int
	Rate    float64 // AdaGrad step
	L2      float64
	// MinCount drops features seen in fewer training cases.
	MinCount int
	// MaxDF drops features found in more than this part of the training
	// cases of one group (a language): function words ("the", "est",
	// "的") say how a text is written, not what it asks, and would let
	// the model learn the style of the corpus' authors. 0 keeps all.
	MaxDF float64
	// Rounds of multiple-instance training: after a first fit on whole
	// texts, each attack is represented by its sentence that weighs most
	// towards its class, and its sentences the model already finds
	// benign count as benign, so that the topic an attack hides in (the
	// weather tool it pretends to be) does not become evidence.
	Rounds int
	// Folds and TargetFPR choose the threshold: the lowest at which the
	// out-of-fold false-positive rate stays at or under TargetFPR.
	Folds     int
	TargetFPR float64
}

// Train fits a model to examples; split is the hash of the training
// cases recorded in the model.
func Train(examples []Example, split string, o Options) (*Model, error) {
	if len(o.Classes) < 2 || o.Folds < 2 {
		return nil, errors.New("textclf: need two classes and two folds or more")
	}
	for _, e := range examples {
		if e.Class < 0 || e.Class >= len(o.Classes) {
			return nil, fmt.Errorf("textclf: example %s has class %d", e.ID, e.Class)
		}
	}
	oof := make([]float64, len(examples))
	for k := range o.Folds {
		var train, test []int
		for i, e := range examples {
			if Fold(e.ID, o.Folds) == k {
				test = append(test, i)
			} else {
				train = append(train, i)
			}
		}
		m := fitRounds(examples, train, o)
		for _, i := range test {
			oof[i] = m.Classify(examples[i].Sentences).Malicious
		}
	}
	all := make([]int, len(examples))
	for i := range all {
		all[i] = i
	}
	m := fitRounds(examples, all, o)
	m.TrainingSplit = split
	m.Threshold, m.CrossValidation = threshold(examples, oof, o.TargetFPR)
	return m, nil
}

// Fold places an example in one of n folds by a hash of its id.
func Fold(id string, n int) int {
	s := sha256.Sum256([]byte("fold:" + id))
	return int(s[0]) % n
}

// minThreshold is the lowest threshold chosen: below it the model would
// flag texts it finds more likely benign than not by a wide margin.
const minThreshold = 0.2

// threshold is the lowest probability, rounded up to 1e-4, at which the
// out-of-fold false-positive rate is at most target.
func threshold(examples []Example, oof []float64, target float64) (float64, Figures) {
	var benign []float64
	for i, e := range examples {
		if e.Class == 0 {
			benign = append(benign, oof[i])
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(benign)))
	allowed := int(target * float64(len(benign)))
	t := minThreshold
	if allowed < len(benign) {
		t = max(t, math.Ceil(benign[allowed]*1e4+1)/1e4)
	}
	var fig Figures
	var mal, fp int
	for i, e := range examples {
		switch {
		case e.Class != 0:
			mal++
			if oof[i] >= t {
				fig.Recall++
			}
		case oof[i] >= t:
			fp++
		}
	}
	fig.Recall = round(fig.Recall / float64(max(mal, 1)))
	fig.FPR = round(float64(fp) / float64(max(len(benign), 1)))
	return t, fig
}

// fitRounds trains on the examples at idx: first on whole texts, then
// Rounds times on sentences chosen by the previous model.
func fitRounds(examples []Example, idx []int, o Options) *Model {
	var inst []instance
	for _, i := range idx {
		inst = append(inst, instance{features: union(examples[i].Sentences), class: examples[i].Class, example: i, group: examples[i].Group})
	}
	stop := common(examples, idx, o.MaxDF)
	m := fit(inst, o, stop)
	for range o.Rounds {
		inst = inst[:0]
		for _, i := range idx {
			inst = append(inst, sentenceInstances(m, examples[i], i)...)
		}
		m = fit(inst, o, stop)
	}
	return m
}

// common are the features found in more than maxDF of the examples at idx
// of some group.
func common(examples []Example, idx []int, maxDF float64) map[string]bool {
	stop := map[string]bool{}
	if maxDF <= 0 {
		return stop
	}
	df := map[string]map[string]int{} // group → feature → examples
	size := map[string]int{}
	for _, i := range idx {
		e := examples[i]
		size[e.Group]++
		if df[e.Group] == nil {
			df[e.Group] = map[string]int{}
		}
		for _, f := range union(e.Sentences) {
			df[e.Group][f]++
		}
	}
	for g, fs := range df {
		for f, n := range fs {
			if float64(n) > maxDF*float64(size[g]) && !strings.HasPrefix(f, CuePrefix) {
				stop[f] = true
			}
		}
	}
	return stop
}

// sentenceInstances are the sentences of e to fit: every sentence of a
// benign text; of an attack, the sentence that weighs most towards its
// class, and as benign those m finds benign.
func sentenceInstances(m *Model, e Example, i int) []instance {
	var out []instance
	if e.Class == 0 {
		for _, s := range e.Sentences {
			out = append(out, instance{features: s, class: 0, example: i, group: e.Group})
		}
		return out
	}
	best, score := -1, 0.0
	for j, s := range e.Sentences {
		if c := m.Contribution(s, e.Class); best < 0 || c > score {
			best, score = j, c
		}
	}
	for j, s := range e.Sentences {
		switch {
		case j == best:
			out = append(out, instance{features: s, class: e.Class, example: i, group: e.Group})
		case m.Classify([][]string{s}).Malicious < 0.5:
			out = append(out, instance{features: s, class: 0, example: i, group: e.Group})
		}
	}
	return out
}

// union is the distinct features of all sentences, in order.
func union(sentences [][]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range sentences {
		for _, f := range s {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// fit trains one model on inst, without the features in stop.
func fit(inst []instance, o Options, stop map[string]bool) *Model {
	vocab := vocabulary(inst, o.MinCount, stop)
	C := len(o.Classes)
	x := make([][]int, len(inst))
	counts := make([]float64, C)
	for j, in := range inst {
		for _, f := range in.features {
			if n, ok := vocab[f]; ok {
				x[j] = append(x[j], n)
			}
		}
		counts[in.class]++
	}
	weight := weights(inst, counts)
	w := make([]float64, len(vocab)*C)
	b := make([]float64, C)
	gw, gb := make([]float64, len(w)), make([]float64, C)
	hw, hb := make([]float64, len(w)), make([]float64, C)
	z := make([]float64, C)
	for range o.Epochs {
		clear(gw)
		clear(gb)
		for j, in := range inst {
			copy(z, b)
			for _, n := range x[j] {
				for c := range C {
					z[c] += w[n*C+c]
				}
			}
			p := softmax(z)
			y := in.class
			for c := range C {
				g := p[c]
				if c == y {
					g--
				}
				g *= weight[j] / float64(len(inst))
				gb[c] += g
				for _, n := range x[j] {
					gw[n*C+c] += g
				}
			}
		}
		for k := range w {
			g := gw[k] + o.L2*w[k]
			hw[k] += g * g
			w[k] -= o.Rate * g / (math.Sqrt(hw[k]) + 1e-8)
		}
		for c := range b {
			hb[c] += gb[c] * gb[c]
			b[c] -= o.Rate * gb[c] / (math.Sqrt(hb[c]) + 1e-8)
		}
	}
	return assemble(vocab, w, b, o.Classes)
}

// weights balances the instances: the attack classes weigh as much as
// each other, and in each group (a language) the benign instances weigh
// as much as the attacks, so that the language of a text is no evidence.
// A group without benign instances keeps its attacks' weight.
func weights(inst []instance, counts []float64) []float64 {
	var attacks int
	for c := 1; c < len(counts); c++ {
		attacks += min(int(counts[c]), 1)
	}
	out := make([]float64, len(inst))
	mal, ben := map[string]float64{}, map[string]float64{}
	for j, in := range inst {
		if in.class == 0 {
			ben[in.group]++
			continue
		}
		out[j] = float64(len(inst)) / (2 * float64(max(attacks, 1)) * counts[in.class])
		mal[in.group] += out[j]
	}
	for j, in := range inst {
		if in.class == 0 {
			out[j] = cmp.Or(mal[in.group], float64(len(inst))/2) / ben[in.group]
		}
	}
	return out
}

// vocabulary numbers, in sorted order, the features seen in at least min
// different examples (minCount), except those in stop.
func vocabulary(inst []instance, minCount int, stop map[string]bool) map[string]int {
	seen := map[string]map[int]bool{}
	for _, in := range inst {
		for _, f := range in.features {
			if seen[f] == nil {
				seen[f] = map[int]bool{}
			}
			seen[f][in.example] = true
		}
	}
	df := make(map[string]int, len(seen))
	for f, ex := range seen {
		df[f] = len(ex)
	}
	var keep []string
	for f, n := range df {
		if n >= minCount && !stop[f] {
			keep = append(keep, f)
		}
	}
	sort.Strings(keep)
	vocab := make(map[string]int, len(keep))
	for n, f := range keep {
		vocab[f] = n
	}
	return vocab
}

// assemble rounds the weights to 1e-3 (the bias to 1e-4) and drops features whose weights
// all round to zero.
func assemble(vocab map[string]int, w, b []float64, classes []string) *Model {
	C := len(classes)
	m := &Model{Format: Format, Classes: slices.Clone(classes), Bias: make([]float64, C),
		Weights: map[string][]float64{}}
	for c := range b {
		m.Bias[c] = round(b[c])
	}
	for f, n := range vocab {
		ws := make([]float64, C)
		var nonzero bool
		for c := range C {
			ws[c] = math.Round(w[n*C+c]*1e3) / 1e3
			nonzero = nonzero || ws[c] != 0
		}
		if nonzero {
			m.Weights[f] = ws
		}
	}
	return m
}

func round(v float64) float64 { return math.Round(v*1e4) / 1e4 }
