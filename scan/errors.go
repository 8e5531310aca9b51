package scan

import (
	"errors"
	"fmt"
	"sync"

	"github.com/mcpreg/mcpreg/pin"
)

// Errors a scan fails with; match them with errors.Is. The message of each
// says what happened and where: which limit and its value, which address,
// which message or JSON pointer.
var (
	// ErrLimit: the server went over one of the scan's Limits.
	ErrLimit = errors.New("scan: limit exceeded")
	// ErrDenied: the scanner refused to connect to an address.
	ErrDenied = errors.New("scan: address denied")
	// ErrProtocol: the server did not speak MCP as expected (no answer to a
	// request, an error response, a repeated cursor, a broken stream).
	ErrProtocol = errors.New("scan: protocol error")
	// ErrInvalid: the server sent JSON that breaks the strict reading rules
	// of the pin specification. Errors from package pin are wrapped, so
	// errors.As finds the *pin.Error with its pointer.
	ErrInvalid = errors.New("scan: invalid server output")
	// ErrTimeout: the scan's deadline passed.
	ErrTimeout = errors.New("scan: deadline exceeded")
)

// limitError reports that the limit name with the given value was hit.
func limitError(name string, value int64, what string) error {
	return fmt.Errorf("%w: %s %d: %s", ErrLimit, name, value, what)
}

// fromPin wraps an error of package pin about what: size, depth and count
// limits become ErrLimit, everything else ErrInvalid.
func fromPin(what string, err error) error {
	if errors.Is(err, pin.ErrTooLarge) {
		return fmt.Errorf("%w: %s: %w", ErrLimit, what, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrInvalid, what, err)
}

// tripwire keeps the first fatal error seen below the SDK (a limit, a
// denied dial, invalid JSON), which explains better than whatever the SDK
// reports once its stream breaks.
type tripwire struct {
	mu  sync.Mutex
	err error
}

// trip records err unless an earlier error was recorded, and returns err.
func (t *tripwire) trip(err error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = err
	}
	return err
}

// Err returns the first recorded error.
func (t *tripwire) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}
