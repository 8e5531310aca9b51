package testkit

import (
	"fmt"
	"os"
	"testing"
)

// EnvRequireAll names the variable that turns every loud skip into a failure
// (CI sets it, so nothing is silently left out there).
const EnvRequireAll = "MCPREG_TEST_REQUIRE_ALL"

// RequireAll reports whether MCPREG_TEST_REQUIRE_ALL=1.
func RequireAll() bool { return os.Getenv(EnvRequireAll) == "1" }

// Unavailable stops the test because something it needs is missing: under
// MCPREG_TEST_REQUIRE_ALL=1 the test fails, otherwise it skips with a banner
// on stderr that a reader of `make test` output cannot miss. Tests call it
// instead of t.Skip, so no check is ever left out quietly.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	why := fmt.Sprintf(format, args...)
	if RequireAll() {
		t.Fatalf("%s (%s=1)", why, EnvRequireAll)
	}
	fmt.Fprintf(os.Stderr, "***** SKIPPING %s: %s *****\n", t.Name(), why)
	t.Skip(why)
}

// RequireRoot stops the test (see Unavailable) unless it runs as root.
func RequireRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Unavailable(t, "needs root: %s", why)
	}
}
