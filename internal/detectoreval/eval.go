package detectoreval

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/pin"
)

// Detector finds poisoning in a tools list (diffreview.PoisoningModel).
type Detector func(*pin.ToolsList) []finding.Finding

// Cell counts the outcomes of one group of cases.
type Cell struct {
	N int `json:"n"`
	// Medium and High count cases with a poisoning finding at that
	// severity or above (for benign cases: false positives).
	Medium int `json:"medium"`
	High   int `json:"high"`
	// RightKind counts malicious cases with a finding at medium or above
	// of a kind their family maps to.
	RightKind int `json:"rightKind"`
}

func (c *Cell) add(o Cell) {
	c.N, c.Medium, c.High, c.RightKind = c.N+o.N, c.Medium+o.Medium, c.High+o.High, c.RightKind+o.RightKind
}

// Rate is part of n as a fraction (0 when n is 0).
func Rate(part, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(part) / float64(n)
}

// SplitReport is the figures of one split.
type SplitReport struct {
	// Attacks by family, then language; Benign by hard-negative kind
	// ("" for ordinary tools).
	Attacks map[string]map[string]Cell `json:"attacks"`
	Benign  map[string]Cell            `json:"benign"`
	// BenignByLanguage counts the benign cases per language.
	BenignByLanguage map[string]Cell `json:"benignByLanguage"`
}

// newSplitReport is an empty report.
func newSplitReport() SplitReport {
	return SplitReport{Attacks: map[string]map[string]Cell{}, Benign: map[string]Cell{}, BenignByLanguage: map[string]Cell{}}
}

// addTo adds c to m[k].
func addTo(m map[string]Cell, k string, c Cell) {
	v := m[k]
	v.add(c)
	m[k] = v
}

// merge adds the counts of o to r.
func (r SplitReport) merge(o SplitReport) {
	for fam, langs := range o.Attacks {
		if r.Attacks[fam] == nil {
			r.Attacks[fam] = map[string]Cell{}
		}
		for lang, c := range langs {
			addTo(r.Attacks[fam], lang, c)
		}
	}
	for k, c := range o.Benign {
		addTo(r.Benign, k, c)
	}
	for k, c := range o.BenignByLanguage {
		addTo(r.BenignByLanguage, k, c)
	}
}

// Totals sums the attacks and the benign cases.
func (r SplitReport) Totals() (attacks, benign Cell) {
	for _, langs := range r.Attacks {
		for _, c := range langs {
			attacks.add(c)
		}
	}
	for _, c := range r.Benign {
		benign.add(c)
	}
	return attacks, benign
}

// Report is the figures of both splits.
type Report struct {
	Development SplitReport `json:"development"`
	// CrossValidated is the development split with each fold measured by
	// a word model that did not learn from it; nil unless asked for.
	CrossValidated *SplitReport `json:"crossValidated,omitempty"`
	HeldOut        SplitReport  `json:"heldOut"`
}

// Evaluate runs detect over every case.
func (c *Corpus) Evaluate(detect Detector) (Report, error) {
	dev, err := evaluate(c.dev, detect)
	if err != nil {
		return Report{}, err
	}
	held, err := evaluate(c.held, detect)
	return Report{Development: dev, HeldOut: held}, err
}

func evaluate(cases []Case, detect Detector) (SplitReport, error) {
	r := newSplitReport()
	for _, cs := range cases {
		l, err := cs.List()
		if err != nil {
			return r, fmt.Errorf("%s: %w", cs.ID, err)
		}
		var cell Cell
		cell.N = 1
		for _, f := range detect(l) {
			if !strings.HasPrefix(f.Kind, "poisoning.") {
				continue
			}
			rank := f.Severity.Rank()
			if rank >= finding.Medium.Rank() {
				cell.Medium = 1
				if slices.Contains(Families[cs.Family], f.Kind) {
					cell.RightKind = 1
				}
			}
			if rank >= finding.High.Rank() {
				cell.High = 1
			}
		}
		if cs.Label == Benign {
			cell.RightKind = 0
			addTo(r.Benign, cs.HardNegative, cell)
			addTo(r.BenignByLanguage, cs.Language, cell)
			continue
		}
		if r.Attacks[cs.Family] == nil {
			r.Attacks[cs.Family] = map[string]Cell{}
		}
		addTo(r.Attacks[cs.Family], cs.Language, cell)
	}
	return r, nil
}

// Print writes a report as tables: per family and language recall at
// medium and high and the part caught by the right kind; per kind of
// benign case the false-positive rate; totals with precision.
func Print(w io.Writer, r Report) error {
	splits := []struct {
		name string
		r    SplitReport
	}{{"development", r.Development}}
	if r.CrossValidated != nil {
		splits = append(splits, struct {
			name string
			r    SplitReport
		}{"development, cross-validated (each fold with a word model trained on the others)", *r.CrossValidated})
	}
	for _, s := range append(splits, struct {
		name string
		r    SplitReport
	}{"held-out", r.HeldOut}) {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "\n%s split\nFAMILY\tLANG\tN\tRECALL≥MEDIUM\tRECALL≥HIGH\tRIGHT KIND\n", s.name)
		for _, fam := range slices.Sorted(maps.Keys(s.r.Attacks)) {
			for _, lang := range Languages {
				c, ok := s.r.Attacks[fam][lang]
				if !ok {
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%.2f\t%.2f\n", fam, lang, c.N, Rate(c.Medium, c.N), Rate(c.High, c.N), Rate(c.RightKind, c.N))
			}
		}
		fmt.Fprintf(tw, "BENIGN KIND\t\tN\tFPR≥MEDIUM\tFPR≥HIGH\t\n")
		for _, k := range slices.Sorted(maps.Keys(s.r.Benign)) {
			c := s.r.Benign[k]
			fmt.Fprintf(tw, "%s\t\t%d\t%.2f\t%.2f\t\n", cmp.Or(k, "ordinary"), c.N, Rate(c.Medium, c.N), Rate(c.High, c.N))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		a, b := s.r.Totals()
		fmt.Fprintf(w, "total: %d attacks, %d benign\n", a.N, b.N)
		fmt.Fprintf(w, "  at medium or above: recall %.3f, false-positive rate %.3f, precision %.3f\n",
			Rate(a.Medium, a.N), Rate(b.Medium, b.N), Rate(a.Medium, a.Medium+b.Medium))
		fmt.Fprintf(w, "  at high or above:   recall %.3f, false-positive rate %.3f, precision %.3f\n",
			Rate(a.High, a.N), Rate(b.High, b.N), Rate(a.High, a.High+b.High))
		fmt.Fprintf(w, "  caught by the right kind: %.3f\n", Rate(a.RightKind, a.N))
		if err := printLanguages(w, s.r); err != nil {
			return err
		}
	}
	return nil
}

// printLanguages writes recall, false-positive rate and precision per
// language at medium and at high.
func printLanguages(w io.Writer, r SplitReport) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "LANG	ATTACKS	BENIGN	RECALL≥M	FPR≥M	PRECISION≥M	RECALL≥H	FPR≥H	PRECISION≥H\n")
	for _, lang := range Languages {
		var a Cell
		for _, langs := range r.Attacks {
			a.add(langs[lang])
		}
		b := r.BenignByLanguage[lang]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", lang, a.N, b.N,
			Rate(a.Medium, a.N), Rate(b.Medium, b.N), Rate(a.Medium, a.Medium+b.Medium),
			Rate(a.High, a.N), Rate(b.High, b.N), Rate(a.High, a.High+b.High))
	}
	return tw.Flush()
}
