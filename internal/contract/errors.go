package contract

import (
	"errors"
	"strings"

	"github.com/mcpreg/mcpreg/internal/violation"
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
type Violation = violation.Violation

// ValidationError lists everything wrong with a document; it unwraps to
// ErrInvalid.
type ValidationError = violation.Error

// invalid sorts and deduplicates vs and wraps them as an error.
func invalid(vs ...Violation) *ValidationError {
	return violation.New(ErrInvalid, vs...)
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
