package registry

import (
	"fmt"
	"time"

	"github.com/mcpreg/mcpreg/internal/domain"
)

// The sentinel errors live in package domain, shared by every service;
// these names keep the registry's callers as they were.
var (
	ErrInvalid            = domain.ErrInvalid
	ErrNotFound           = domain.ErrNotFound
	ErrAlreadyExists      = domain.ErrAlreadyExists
	ErrConflict           = domain.ErrConflict
	ErrFailedPrecondition = domain.ErrFailedPrecondition
	ErrUnauthenticated    = domain.ErrUnauthenticated
	ErrPermissionDenied   = domain.ErrPermissionDenied
	ErrTooLarge           = domain.ErrTooLarge
	ErrRateLimited        = domain.ErrRateLimited
)

// RetryError is domain.RetryError.
type RetryError = domain.RetryError

// RetryAfter is domain.RetryAfter.
func RetryAfter(err error) (time.Duration, bool) { return domain.RetryAfter(err) }

var (
	retryf    = domain.Retryf
	invalidf  = domain.Invalidf
	notFoundf = domain.NotFoundf
	deniedf   = domain.Deniedf
)

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
