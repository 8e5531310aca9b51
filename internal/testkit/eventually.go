package testkit

import (
	"fmt"
	"testing"
	"time"
)

// PollInterval is how often Eventually checks its condition.
const PollInterval = 20 * time.Millisecond

// Eventually checks cond every PollInterval until it holds, and fails the
// test with the message if it still does not after timeout. The timeout is a
// ceiling for slow machines, never a measurement: what a test asserts is that
// the condition comes true. The message's arguments are evaluated when
// Eventually is called, not when it fails.
func Eventually(t testing.TB, timeout time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	if !Poll(timeout, cond) {
		t.Fatalf("after %v: %s", timeout, fmt.Sprintf(format, args...))
	}
}

// Poll checks cond every PollInterval until it holds (true) or timeout
// passes (false), for callers that report the failure themselves.
func Poll(timeout time.Duration, cond func() bool) bool {
	for end := time.Now().Add(timeout); ; time.Sleep(PollInterval) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}
