package scan

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/diffreview"
)

// KindPromptInconsistent is the finding for a prompt whose two prompts/get
// reads within one reading returned different messages: the server may
// serve a model different prompts to different calls.
const KindPromptInconsistent = "scan.prompt_inconsistent"

// promptInconsistencies reports the prompts of r whose two reads differ.
// finding.Finding names tools only, so the prompt's name is in the message
// and the evidence, and Tool is empty.
func promptInconsistencies(r Reading) []finding.Finding {
	var fs []finding.Finding
	for _, c := range r.promptChanges {
		fs = append(fs, finding.Finding{Kind: KindPromptInconsistent, Severity: finding.High,
			Message: fmt.Sprintf("prompts/get of prompt %q returned different messages on two reads within one scan (%s): the server may serve different prompts to different calls",
				c.name, r.ProtocolVersion),
			Evidence: fmt.Sprintf("prompt %q: %s", c.name, firstDifference(c.first, c.second))})
	}
	return fs
}

// firstDifference shows where the canonical forms a and b part, with a
// little context before, cut at character boundaries.
func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	window := func(v []byte) string {
		from, to := max(0, i-24), min(len(v), i+96)
		for from > 0 && !utf8.RuneStart(v[from]) {
			from--
		}
		for to < len(v) && !utf8.RuneStart(v[to]) {
			to++
		}
		text := diffreview.Visible(string(v[from:to]))
		if from > 0 {
			text = "…" + text
		}
		if to < len(v) {
			text += "…"
		}
		return text
	}
	return fmt.Sprintf("the messages differ at byte %d of their canonical form; first read %s; second read %s", i, window(a), window(b))
}

// catalogVariance reports the prompts, resources and resource templates
// that b (another protocol version) listed differently from the primary
// reading a. Lists are compared item by item, keyed by name, URI or URI
// template, in the canonical (JCS) form of what the pin specification
// pins of each (its projection): the order of a list and of members, the
// spelling of strings and numbers, and unpinned members such as _meta or
// icons do not count.
func catalogVariance(a, b Reading) []finding.Finding {
	var fs []finding.Finding
	for _, c := range []struct {
		cat    catalog
		ra, rb []json.RawMessage
	}{
		{promptsCatalog, a.Prompts, b.Prompts},
		{resourcesCatalog, a.Resources, b.Resources},
		{templatesCatalog, a.ResourceTemplates, b.ResourceTemplates},
	} {
		added, removed, changed := itemChanges(c.ra, c.rb, c.cat)
		if len(added)+len(removed)+len(changed) == 0 {
			continue
		}
		fs = append(fs, finding.Finding{Kind: KindProtocolVariance, Severity: finding.High,
			Message: fmt.Sprintf("the %ss differ by protocol version: %s listed %d %ss, %s listed %d (%s): the server may show the scanner one face and clients another",
				c.cat.noun, a.ProtocolVersion, len(c.ra), c.cat.noun, b.ProtocolVersion, len(c.rb), c.cat.method),
			Evidence: changeSummary(added, removed, changed)})
	}
	return fs
}

// itemChanges compares two lists of catalog c by key.
func itemChanges(a, b []json.RawMessage, c catalog) (added, removed, changed []string) {
	before, after := keyed(a, c), keyed(b, c)
	for k, v := range after {
		if w, ok := before[k]; !ok {
			added = append(added, k)
		} else if w != v {
			changed = append(changed, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			removed = append(removed, k)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	slices.Sort(changed)
	return added, removed, changed
}

// keyed maps each item (read strictly before) by its key to the canonical
// form of its projection.
func keyed(items []json.RawMessage, c catalog) map[string]string {
	out := make(map[string]string, len(items))
	for _, raw := range items {
		if ms, err := members(raw); err == nil {
			out[unquoted(ms[c.key])] = string(canonical(projection(ms, c.projection)))
		}
	}
	return out
}

// projection writes the object of the members of ms named in names.
func projection(ms map[string]jsontext.Value, names []string) []byte {
	b := []byte{'{'}
	for _, name := range names {
		v, ok := ms[name]
		if !ok {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b, _ = jsontext.AppendQuote(b, name)
		b = append(append(b, ':'), v...)
	}
	return append(b, '}')
}
