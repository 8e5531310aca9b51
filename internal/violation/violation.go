// Package violation is how mcpreg reports everything wrong with a submitted
// document at once: each problem with the RFC 6901 JSON pointer of the
// offending value, sorted and without duplicates. server.json and capability
// contract validation both speak it.
package violation

import (
	"cmp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Violation is one thing wrong with a document.
type Violation struct {
	// Pointer is the RFC 6901 JSON pointer of the offending value: "" for
	// the document itself (shown as "/").
	Pointer string `json:"pointer"`
	// Message says what is wrong, in English.
	Message string `json:"message"`
}

// String renders the violation as "pointer: message".
func (v Violation) String() string {
	return cmp.Or(v.Pointer, "/") + ": " + v.Message
}

// Error lists everything wrong with a document; it unwraps to Kind, the
// validating package's sentinel.
type Error struct {
	Kind error
	// Violations is sorted by Pointer, then Message, without duplicates.
	Violations []Violation
}

// New sorts and deduplicates vs into an Error of the given kind.
func New(kind error, vs ...Violation) *Error {
	vs = slices.Clone(vs)
	slices.SortFunc(vs, func(a, b Violation) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
	})
	return &Error{Kind: kind, Violations: slices.Compact(vs)}
}

// Error lists all violations: "<kind>: /name: ...; /version: ...".
func (e *Error) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.String()
	}
	prefix := "invalid document"
	if e.Kind != nil {
		prefix = e.Kind.Error()
	}
	return prefix + ": " + strings.Join(parts, "; ")
}

// Unwrap returns Kind.
func (e *Error) Unwrap() error { return e.Kind }

// Pointers returns the pointer of every violation, in order.
func (e *Error) Pointers() []string {
	ps := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		ps[i] = v.Pointer
	}
	return ps
}

// Leaves are the failures of a JSON Schema validation error that have no
// causes: inner nodes ($ref, allOf, the root) only summarise them.
func Leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, Leaves(c)...)
	}
	return out
}
