package contract

import (
	"cmp"
	"errors"
	"slices"
	"strings"
)

var (
	// ErrInvalid is matched by every error reporting a document that is
	// not a valid contract (syntax, schema, duplicates, durations).
	ErrInvalid = errors.New("contract: invalid contract")
	// ErrTooLarge is matched by errors reporting a document over a size or
	// nesting limit. Such errors do not match ErrInvalid.
	ErrTooLarge = errors.New("contract: contract over limit")
)

// Violation is one thing wrong with a contract document.
type Violation struct {
	// Pointer is the RFC 6901 JSON pointer of the offending value in the
	// document's JSON form: "" for the document itself (shown as "/").
	Pointer string `json:"pointer"`
	// Message says what is wrong, in English.
	Message string `json:"message"`
}

// String renders the violation as "pointer: message".
func (v Violation) String() string {
	return cmp.Or(v.Pointer, "/") + ": " + v.Message
}

// ValidationError lists everything wrong with a document; it unwraps to
// ErrInvalid.
type ValidationError struct {
	// Violations is sorted by Pointer, then Message, without duplicates.
	Violations []Violation
}

// Error lists all violations: "contract: invalid contract: /auth: ...; ...".
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

// invalid sorts and deduplicates vs and wraps them as an error.
func invalid(vs ...Violation) *ValidationError {
	vs = slices.Clone(vs)
	slices.SortFunc(vs, func(a, b Violation) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
	})
	return &ValidationError{Violations: slices.Compact(vs)}
}

// LimitError reports a document over a limit; it unwraps to ErrTooLarge.
type LimitError struct {
	// Pointer locates the value that crossed the limit ("" for the whole
	// document).
	Pointer string
	// Reason names the limit and the value that crossed it.
	Reason string
}

// Error formats the reason and, when known, the place.
func (e *LimitError) Error() string {
	if e.Pointer == "" {
		return ErrTooLarge.Error() + ": " + e.Reason
	}
	return ErrTooLarge.Error() + ": " + e.Reason + " at " + e.Pointer
}

// Unwrap returns ErrTooLarge.
func (e *LimitError) Unwrap() error { return ErrTooLarge }

// pointer renders reference tokens as an RFC 6901 JSON pointer.
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(tokenEscaper.Replace(t))
	}
	return b.String()
}

var tokenEscaper = strings.NewReplacer("~", "~0", "/", "~1")
