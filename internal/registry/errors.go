package registry

import (
	"errors"
	"fmt"
	"time"
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
	// ErrRateLimited is a request refused for now (a rate or a capacity
	// is used up); it comes as a RetryError saying when to try again.
	ErrRateLimited = errors.New("rate limited")
)

// RetryError is a refusal that says when to try again (HTTP Retry-After,
// gRPC RetryInfo). It wraps ErrRateLimited.
type RetryError struct {
	Msg   string
	After time.Duration
}

func (e *RetryError) Error() string { return ErrRateLimited.Error() + ": " + e.Msg }

// Unwrap makes errors.Is(err, ErrRateLimited) hold.
func (e *RetryError) Unwrap() error { return ErrRateLimited }

// RetryAfter is how long a refused caller should wait, rounded up to whole
// seconds (at least one), when err is a RetryError.
func RetryAfter(err error) (time.Duration, bool) {
	var re *RetryError
	if !errors.As(err, &re) {
		return 0, false
	}
	return max(time.Second, (re.After + time.Second - 1).Truncate(time.Second)), true
}

func retryf(after time.Duration, format string, args ...any) error {
	return &RetryError{Msg: fmt.Sprintf(format, args...), After: after}
}

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
