package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/daemon"
	"github.com/mcpreg/mcpreg/internal/ent/upstreamrecord"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/upstream/upstreamtest"
)

// scaleServers is the synthetic upstream's size: 2,000 in make test,
// MCPREG_SCALE_SERVERS in make scale (100,000).
func scaleServers(t *testing.T) int {
	if s := os.Getenv("MCPREG_SCALE_SERVERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 10 {
			t.Fatalf("MCPREG_SCALE_SERVERS=%q: want a number of servers, at least 10", s)
		}
		return n
	}
	return 2000
}

// TestUpstreamSyncKilledResumes: `mcpregd upstream sync` of a synthetic
// upstream is SIGKILLed halfway through its pass; the next run (the same
// replica name) resumes from the stored cursor and ends with every
// server imported exactly once, each with its record, and an audit chain
// that verifies. On SQLite and PostgreSQL.
func TestUpstreamSyncKilledResumes(t *testing.T) {
	bin := buildDaemon(t)
	storetest.EachDialect(t, func(t *testing.T, dialect string) { syncKilledResumes(t, bin, dialect) })
}

func syncKilledResumes(t *testing.T, bin, dialect string) {
	n := scaleServers(t)
	dir := t.TempDir()
	env := daemon.Env(dir, "MCPREG_SCAN_NPM_DIR="+servertest.ScanUserDir(t), "MCPREG_REPLICA=sync-test")
	db := storetest.EmptyDSN(t, dialect)
	f := upstreamtest.New(t)
	published := time.Now().Add(-time.Hour).UTC()
	for i := range n {
		f.Put(upstreamtest.Server{Name: fmt.Sprintf("io.github.scale%d/server-%06d", i%50, i), Version: "1.0.0",
			PublishedAt: published, UpdatedAt: published})
	}
	if out, err := daemon.Admin(t.Context(), bin, dir, env, "", "upstream", "add", "synthetic", "--db", db, "--url", f.URL,
		"--namespace", "io.github.*", "--allow", "127.0.0.1", "--tools", "none", "--interval", "0"); err != nil {
		t.Fatalf("upstream add: %v\n%s", err, out)
	}
	st, err := store.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	imported := func() int {
		c, err := st.Client.UpstreamRecord.Query().Where(upstreamrecord.VersionIDNotNil()).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	start := time.Now()
	cmd := exec.Command(bin, "upstream", "sync", "synthetic", "--db", db)
	cmd.Env, cmd.Dir = env, dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for imported() < n/2 {
		if cmd.ProcessState != nil || time.Since(start) > 10*time.Minute {
			t.Fatalf("the pass ended or stalled before half was imported (%d):\n%s", imported(), out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	atKill := imported()
	t.Logf("%s: killed after %s with %d of %d imported", dialect, time.Since(start).Round(time.Millisecond), atKill, n)
	if atKill >= n {
		t.Fatalf("the pass finished before it was killed")
	}

	pagesBefore := f.Pages()
	resumed := time.Now()
	o, err := daemon.Admin(t.Context(), bin, dir, env, "", "upstream", "sync", "synthetic", "--db", db)
	if err != nil {
		t.Fatalf("resumed sync: %v\n%s", err, o)
	}
	t.Logf("%s: resumed pass took %s, %d pages: %s", dialect, time.Since(resumed).Round(time.Millisecond), f.Pages()-pagesBefore, strings.TrimSpace(o))
	if first := f.Cursors()[pagesBefore]; first == "" {
		t.Errorf("the resumed pass started from the first page, not the stored cursor")
	}
	ctx := context.Background()
	versions, err := st.Client.Version.Query().Where(version.SubmittedBy("upstream:synthetic")).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	servers, err := st.Client.Server.Query().Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if versions != n || servers != n || imported() != n {
		t.Fatalf("after the resumed pass: %d versions, %d servers, %d imported records; want %d of each", versions, servers, imported(), n)
	}
	if out, err := daemon.Admin(t.Context(), bin, dir, env, "", "audit", "verify", "--db", db); err != nil {
		t.Fatalf("audit verify: %v\n%s", err, out)
	}
	// A further pass lists what changed since (nothing) and imports
	// nothing.
	o, err = daemon.Admin(t.Context(), bin, dir, env, "", "upstream", "sync", "synthetic", "--db", db)
	if err != nil || !strings.Contains(o, " 0 imported") {
		t.Errorf("pass after the resumed one: %v\n%s", err, o)
	}
}
