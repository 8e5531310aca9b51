package serverjson

import (
	"errors"
	"fmt"

	"github.com/mcpreg/mcpreg/internal/violation"
)

var (
	// ErrInvalid is matched (errors.Is) by every error Parse and
	// CheckSubmission return.
	ErrInvalid = errors.New("invalid server.json")

	// ErrInvalidName is returned by Namespace for a name that is not in
	// the registry's "namespace/server" form. It wraps ErrInvalid.
	ErrInvalidName = fmt.Errorf("%w: server name must match %s", ErrInvalid, namePattern)
)

// Violation is one thing wrong with a server.json document.
type Violation = violation.Violation

// ValidationError lists everything wrong with a document. Parse returns it
// (as *ValidationError) for every rejection; it unwraps to ErrInvalid.
type ValidationError = violation.Error

// newValidationError sorts and deduplicates vs and wraps them as an error.
func newValidationError(vs ...Violation) *ValidationError {
	return violation.New(ErrInvalid, vs...)
}
