package registry

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the service returns wraps one of them, so the
// transport maps it to a status code with errors.Is.
var (
	ErrInvalid            = errors.New("invalid argument")
	ErrNotFound           = errors.New("not found")
	ErrAlreadyExists      = errors.New("already exists")
	ErrConflict           = errors.New("conflict")
	ErrFailedPrecondition = errors.New("failed precondition")
	ErrUnauthenticated    = errors.New("unauthenticated")
	ErrPermissionDenied   = errors.New("permission denied")
	ErrTooLarge           = errors.New("too large")
)

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

func notFoundf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrNotFound}, args...)...)
}

func deniedf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrPermissionDenied}, args...)...)
}

// StateError says a transition is not allowed from the version's current
// state. It wraps ErrFailedPrecondition.
type StateError struct {
	Subject string
	Action  string
	Current string
	Allowed []string
}

func (e *StateError) Error() string {
	return fmt.Sprintf("cannot %s %s: its current state is %s (%s needs %v)",
		e.Action, e.Subject, e.Current, e.Action, e.Allowed)
}

// Unwrap makes errors.Is(err, ErrFailedPrecondition) hold.
func (e *StateError) Unwrap() error { return ErrFailedPrecondition }
