// Package e2e_test drives the reviewer web UI end to end: a real mcpregd
// process on each dialect of storetest.Dialects (an SQLite file, and a
// PostgreSQL database when MCPREG_TEST_POSTGRES_DSN is set), the real
// mcpreg CLI and admin commands on the same database, a real MCP server
// (Go SDK fixture) and a real headless Chromium through chromedp. It checks
// the review flow of the web UI issue (sign-in, queue, review, approve,
// four-eyes, rug pull, quarantine, drift accepted by a second reviewer) and
// the security rules (CSRF, sign-in redirects, admin-only pages, escaping)
// on every dialect, and on SQLite also accessibility with axe-core; it
// writes full-page screenshots of the SQLite run to artifacts/.
//
// Without Chromium (or axe-core) the browser parts are skipped loudly, and
// without MCPREG_TEST_POSTGRES_DSN the PostgreSQL runs; under
// MCPREG_TEST_REQUIRE_ALL=1 either fails instead.
package e2e_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/mcpreg/mcpreg/internal/daemon"
)

// bins are the binaries TestMain builds from this module.
var bins struct {
	daemon, cli string
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcpreg-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if bins.daemon, bins.cli, err = daemon.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	return m.Run()
}
