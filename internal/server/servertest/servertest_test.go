package servertest_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// fatalRecorder is a test that records its fatal message and stops the
// goroutine, as testing.T does, without failing the real test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalRecorder) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fatalRecorder) FailNow() { runtime.Goexit() }

// TestStartRefusesInvalidConfig: the test server verifies its
// configuration like `mcpregd serve` does and refuses what Verify refuses,
// with Verify's words.
func TestStartRefusesInvalidConfig(t *testing.T) {
	st := storetest.Open(t, store.DialectSQLite)
	bad := func(c *config.Config) { c.ContractMaxTokenTTL = 0 }
	cfg := config.DefaultConfig()
	bad(&cfg)
	want := cfg.Verify()
	if want == nil || !strings.Contains(want.Error(), "--contract-max-token-ttl 0s") {
		t.Fatalf("Verify() = %v, want the token TTL refused", want)
	}
	rec := &fatalRecorder{TB: t}
	done := make(chan *servertest.Instance, 1)
	go func() {
		defer close(done)
		done <- servertest.StartOn(rec, st, bad)
	}()
	if in := <-done; in != nil {
		t.Fatalf("the test server started at %s with an invalid configuration", in.URL)
	}
	if !strings.Contains(rec.msg, want.Error()) {
		t.Fatalf("the test server stopped with %q, want Verify's %q", rec.msg, want)
	}
}
