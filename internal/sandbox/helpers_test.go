package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// newTestSandbox returns a sandbox with cfg, or skips loudly where one
// cannot be set up (fails under MCPREG_TEST_REQUIRE_ALL=1).
func newTestSandbox(t testing.TB, cfg Config) *Sandbox {
	t.Helper()
	sb, err := New(context.Background(), cfg)
	if err != nil {
		testkit.Unavailable(t, "%s", "the scan sandbox cannot be set up here: "+err.Error())
	}
	return sb
}

// script writes a shell script the sandbox's uids may run, and returns its
// path (its folder is bound into runs as the command's folder).
func script(t testing.TB, body string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcpreg-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(path, []byte("#!/bin/bash\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// run runs argv in sb to its end and returns its output and error.
func run(t testing.TB, sb *Sandbox, c Cmd) (string, string, error) {
	t.Helper()
	var out, errb syncBuilder
	c.Stdout, c.Stderr = &out, &errb
	if c.Env == nil {
		c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + Home}
	}
	p, err := sb.Command(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	err = p.Wait()
	assertGone(t, p)
	return out.String(), errb.String(), err
}

// assertGone checks that the run's cgroup was emptied and removed.
func assertGone(t testing.TB, p *Process) {
	t.Helper()
	for _, d := range p.cg.dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			procs, _ := p.cg.procs()
			t.Fatalf("cgroup %s still exists after the run (processes %v)", d, procs)
		}
	}
}

// markerAlive reports processes whose command line contains marker.
func markerAlive(marker string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			_, after, _ := strings.Cut(string(stat), ") ")
			if strings.HasPrefix(after, "Z") {
				continue
			}
		}
		out = append(out, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}
