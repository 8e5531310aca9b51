package detectoreval

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
)

// SplitRule says how a case is assigned to a split.
const SplitRule = "held out when the first byte of SHA-256 of the case id is below 128"

// Split is the frozen split as committed (split.json): every held-out id
// with the digest of its line, and the development ids.
type Split struct {
	Rule        string            `json:"rule"`
	HeldOut     map[string]string `json:"heldOut"`
	Development []string          `json:"development"`
}

// ReadSplit reads split.json.
func ReadSplit(path string) (Split, error) {
	var s Split
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Freeze returns the split of c, extending prev: new cases are added by
// the rule; a held-out case whose line changed is refused unless its id
// is in accept (a label fix, to be listed in the closing note); no case
// may leave the corpus.
func (c *Corpus) Freeze(prev Split, accept []string) (Split, error) {
	out := Split{Rule: SplitRule, HeldOut: map[string]string{}, Development: []string{}}
	var errs []error
	present := map[string]bool{}
	for _, cs := range c.held {
		present[cs.ID] = true
		if d, ok := prev.HeldOut[cs.ID]; ok && d != cs.Digest() && !slices.Contains(accept, cs.ID) {
			errs = append(errs, fmt.Errorf("held-out case %s (%s) changed: held-out cases are frozen (label fixes only, named with -accept)", cs.ID, cs.file))
		}
		out.HeldOut[cs.ID] = cs.Digest()
	}
	for _, cs := range c.dev {
		present[cs.ID] = true
		out.Development = append(out.Development, cs.ID)
	}
	for id := range prev.HeldOut {
		if !present[id] {
			errs = append(errs, fmt.Errorf("held-out case %s is gone from the corpus", id))
		}
	}
	sort.Strings(out.Development)
	return out, errors.Join(errs...)
}

// CheckFrozen reports how c departs from the committed split: a case
// the split does not know, a held-out case changed or gone, a case on
// the wrong side of the rule.
func (c *Corpus) CheckFrozen(s Split) error {
	var errs []error
	if s.Rule != SplitRule {
		errs = append(errs, fmt.Errorf("split rule %q, want %q", s.Rule, SplitRule))
	}
	known := map[string]bool{}
	for _, id := range s.Development {
		known[id] = true
		if HeldOut(id) {
			errs = append(errs, fmt.Errorf("development case %s is held out by the rule", id))
		}
	}
	present := map[string]bool{}
	for _, cs := range c.held {
		present[cs.ID] = true
		switch d, ok := s.HeldOut[cs.ID]; {
		case !ok:
			errs = append(errs, fmt.Errorf("case %s is not in split.json: run go run ./scripts/corpussplit", cs.ID))
		case d != cs.Digest():
			errs = append(errs, fmt.Errorf("held-out case %s (%s) differs from the frozen split", cs.ID, cs.file))
		}
	}
	for _, cs := range c.dev {
		present[cs.ID] = true
		if !known[cs.ID] {
			errs = append(errs, fmt.Errorf("case %s is not in split.json: run go run ./scripts/corpussplit", cs.ID))
		}
	}
	for id := range s.HeldOut {
		if !present[id] {
			errs = append(errs, fmt.Errorf("held-out case %s is gone from the corpus", id))
		}
	}
	return errors.Join(errs...)
}
