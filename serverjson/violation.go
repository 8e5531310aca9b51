package serverjson

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

var (
	// ErrInvalid is matched (errors.Is) by every error Parse returns.
	ErrInvalid = errors.New("invalid server.json")

	// ErrInvalidName is returned by Namespace for a name that is not in
	// the registry's "namespace/server" form. It wraps ErrInvalid.
	ErrInvalidName = fmt.Errorf("%w: server name must match %s", ErrInvalid, namePattern)
)

// Violation is one thing wrong with a server.json document.
type Violation struct {
	// Pointer is the RFC 6901 JSON pointer of the offending value in the
	// document: "" for the document itself (shown as "/" in messages).
	Pointer string
	// Message says what is wrong, in English.
	Message string
}

// String renders the violation as "pointer: message".
func (v Violation) String() string {
	p := v.Pointer
	if p == "" {
		p = "/"
	}
	return p + ": " + v.Message
}

// ValidationError lists everything wrong with a document. Parse returns it
// (as *ValidationError) for every rejection; it unwraps to ErrInvalid.
type ValidationError struct {
	// Violations is sorted by Pointer, then Message, without duplicates.
	Violations []Violation
}

// Error lists all violations: "invalid server.json: /name: ...; /version: ...".
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.String()
	}
	return ErrInvalid.Error() + ": " + strings.Join(parts, "; ")
}

// Unwrap returns ErrInvalid.
func (e *ValidationError) Unwrap() error { return ErrInvalid }

// Pointers returns the pointer of every violation, in order.
func (e *ValidationError) Pointers() []string {
	ps := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		ps[i] = v.Pointer
	}
	return ps
}

// newValidationError sorts and deduplicates vs and wraps them as an error.
func newValidationError(vs ...Violation) *ValidationError {
	slices.SortFunc(vs, compareViolations)
	return &ValidationError{Violations: slices.Compact(vs)}
}

func compareViolations(a, b Violation) int {
	return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
}
