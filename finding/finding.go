// Package finding defines what every checker in mcpreg reports to a
// reviewer: evidence, not verdicts. Contract checks, poisoning and shadowing
// detectors, drift classification and attestation problems all speak it.
package finding

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

// Severity orders findings for reviewers.
type Severity string

// Severities, lowest first.
const (
	Info     Severity = "info"
	Low      Severity = "low"
	Medium   Severity = "medium"
	High     Severity = "high"
	Critical Severity = "critical"
)

var rank = map[Severity]int{Info: 0, Low: 1, Medium: 2, High: 3, Critical: 4}

// Rank returns the severity's order (info 0 … critical 4; unknown -1).
func (s Severity) Rank() int {
	if r, ok := rank[s]; ok {
		return r
	}
	return -1
}

// Finding is one thing a reviewer must see.
type Finding struct {
	// Kind is a stable dotted identifier, e.g. "contract.oauth_without_scopes"
	// or "poisoning.instruction_override".
	Kind     string   `json:"kind"`
	Severity Severity `json:"severity"`
	// Tool names the tool concerned, if any.
	Tool string `json:"tool,omitempty"`
	// Pointer is an RFC 6901 JSON pointer into the document the finding is
	// about (the tool's raw JSON, the contract, the instructions).
	Pointer string `json:"pointer,omitempty"`
	// Message says what is wrong in a sentence a reviewer understands.
	Message string `json:"message"`
	// Evidence is the excerpt concerned, with invisible characters made
	// visible.
	Evidence string `json:"evidence,omitempty"`
	// Span locates the evidence in the string at Pointer, when the
	// finding is about part of one string.
	Span Span `json:"span,omitzero"`
}

// Span is a range of runes [Start, End) of a string as decoded from JSON
// (not of its JSON encoding, and not of its UTF-8 bytes). The zero Span
// stands for none.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// RuneSpan is the Span of s[start:end], given in bytes.
func RuneSpan(s string, start, end int) Span {
	start, end = min(max(start, 0), len(s)), min(max(end, 0), len(s))
	a := utf8.RuneCountInString(s[:start])
	return Span{Start: a, End: a + utf8.RuneCountInString(s[start:max(start, end)])}
}

// Sort orders findings: highest severity first, then tool, pointer, kind.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(b.Severity.Rank(), a.Severity.Rank()),
			cmp.Compare(a.Tool, b.Tool),
			cmp.Compare(a.Pointer, b.Pointer),
			cmp.Compare(a.Kind, b.Kind),
		)
	})
}

// Max returns the highest severity among fs, or "" when fs is empty.
func Max(fs []Finding) Severity {
	var best Severity
	for _, f := range fs {
		if f.Severity.Rank() > best.Rank() {
			best = f.Severity
		}
	}
	return best
}
