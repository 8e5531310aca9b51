package daemon_test

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/daemon"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestDrainDelay: after SIGTERM a replica reports not ready at once but
// keeps answering for --drain-delay, so a load balancer stops sending it
// requests before its listeners close; then it exits cleanly.
func TestDrainDelay(t *testing.T) {
	storetest.EachDialect(t, drainDelay)
}

func drainDelay(t *testing.T, dialect string) {
	dir := t.TempDir()
	p, err := daemon.Start(bins.daemon, dir, daemon.Env(dir), "drain", "--db", storetest.EmptyDSN(t, dialect),
		"--discovery-key", filepath.Join(dir, "d.key"), "--scan-interval", "0", "--drain-delay", "1500ms")
	if err != nil {
		t.Fatal(err)
	}
	status := func(path string) int {
		resp, err := http.Get(p.URL + path)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status("/readyz"); got != 200 {
		t.Fatalf("readyz before the signal: %d", got)
	}
	stopped := make(chan error, 1)
	signalled := time.Now()
	go func() { stopped <- p.Stop(20 * time.Second) }()
	deadline := time.Now().Add(time.Second)
	for status("/readyz") != http.StatusServiceUnavailable {
		if time.Now().After(deadline) {
			t.Fatal("readyz still not 503 a second after SIGTERM")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := status("/healthz"); got != 200 {
		t.Fatalf("healthz while draining: %d, want the replica still answering", got)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("exit: %v", err)
	}
	if took := time.Since(signalled); took < 1500*time.Millisecond {
		t.Fatalf("exited %s after SIGTERM, before the drain delay", took)
	}
}
