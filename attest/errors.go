package attest

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error Verify returns wraps exactly one of them; test
// with errors.Is. The message after the sentinel says what was wrong.
var (
	// ErrInvalidBundle: the bundle is not a sigstore bundle this package can
	// read (malformed JSON, unknown media type or version, missing parts).
	ErrInvalidBundle = errors.New("invalid bundle")
	// ErrVerification: the bundle was read but does not verify: signature,
	// certificate chain, transparency log, timestamps, identity, artifact
	// digest or predicate type. Unverifiable means not approvable.
	ErrVerification = errors.New("verification failed")
	// ErrPolicy: the policy is invalid, or accepts no signer at all.
	ErrPolicy = errors.New("invalid policy")
	// ErrTooLarge: the bundle is larger than the configured limit.
	ErrTooLarge = errors.New("bundle too large")
	// ErrUnknownRoot: a policy or configuration names a trusted root that
	// was not loaded.
	ErrUnknownRoot = errors.New("unknown trusted root")
	// ErrInvalidArtifact: no artifact, or a digest that cannot be used
	// (unsupported algorithm, wrong length, bad encoding).
	ErrInvalidArtifact = errors.New("invalid artifact")
)

// FieldError is an invalid policy field. It wraps ErrPolicy.
type FieldError struct {
	// Field is the JSON path of the field, such as "identities[0].sanRegexp".
	Field string
	// Problem says what is wrong with it.
	Problem string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%v: %s: %s", ErrPolicy, e.Field, e.Problem)
}

// Unwrap makes errors.Is(err, ErrPolicy) hold.
func (e *FieldError) Unwrap() error { return ErrPolicy }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// failf returns an error wrapping sentinel with a formatted reason.
func failf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}
