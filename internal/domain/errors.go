package domain

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
	// ErrThrottled is too many failed sign-ins in a short time.
	ErrThrottled = errors.New("too many attempts")
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

// Retryf is a RetryError saying when to try again.
func Retryf(after time.Duration, format string, args ...any) error {
	return &RetryError{Msg: fmt.Sprintf(format, args...), After: after}
}

// Invalidf wraps ErrInvalid with a message.
func Invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// NotFoundf wraps ErrNotFound with a message.
func NotFoundf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrNotFound}, args...)...)
}

// Deniedf wraps ErrPermissionDenied with a message.
func Deniedf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrPermissionDenied}, args...)...)
}
