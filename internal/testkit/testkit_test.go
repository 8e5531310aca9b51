package testkit

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRepoRootHoldsGoMod(t *testing.T) {
	if _, err := os.Stat(filepath.Join(RepoRoot(t), "go.mod")); err != nil {
		t.Fatal(err)
	}
	if got := Files(t, "pin/*.pins.json"); len(got) == 0 {
		t.Fatal("no pin vectors")
	}
}

func TestPoll(t *testing.T) {
	n := 0
	if !Poll(time.Second, func() bool { n++; return n == 3 }) {
		t.Fatal("Poll gave up on a condition that came true")
	}
	if Poll(3*PollInterval, func() bool { return false }) {
		t.Fatal("Poll reported a condition that never held")
	}
}

func TestClockAdvances(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewClock(start)
	c.Advance(time.Hour)
	if got := c.Now(); !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("Now = %v", got)
	}
}

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("same"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := &recorder{TB: t}
	Golden(ok, path, []byte("same"))
	if ok.failed {
		t.Fatal("Golden failed on equal bytes")
	}
	differs := &recorder{TB: t}
	Golden(differs, path, []byte("other"))
	if !differs.failed {
		t.Fatal("Golden passed on different bytes")
	}
	missing := &recorder{TB: t}
	Golden(missing, path+".absent", []byte("same"))
	if !missing.failed {
		t.Fatal("Golden passed without a golden file")
	}
}
