package signing

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error this package returns wraps one of them; test
// with errors.Is. The message after the sentinel says what was wrong.
var (
	// ErrInvalidKey: a key is not a well-formed Ed25519 key in the expected
	// encoding (wrong PEM block, another algorithm, wrong size, bad id).
	ErrInvalidKey = errors.New("invalid key")
	// ErrKeyFileMode: a private key file is readable by group or others.
	ErrKeyFileMode = errors.New("unsafe key file permissions")
	// ErrMalformedEnvelope: the envelope is not a DSSE envelope this package
	// reads (bad JSON, unknown fields, missing fields, bad base64).
	ErrMalformedEnvelope = errors.New("malformed envelope")
	// ErrTooLarge: the envelope is larger than MaxEnvelopeSize.
	ErrTooLarge = errors.New("envelope too large")
	// ErrPayloadType: the envelope carries another payload type.
	ErrPayloadType = errors.New("wrong payload type")
	// ErrUnknownKey: a signature names a key id that is not trusted.
	ErrUnknownKey = errors.New("unknown key")
	// ErrSignature: a signature by a trusted key does not verify.
	ErrSignature = errors.New("invalid signature")
)

// failf returns an error wrapping sentinel with a formatted reason.
func failf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}
