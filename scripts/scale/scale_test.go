package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/daemon"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// envInt reads a positive number from the environment, else def.
func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, s)
	}
	return n
}

// TestScale runs the scale measurement end to end on each dialect: a
// generated fleet (2,000 servers in make test, MCPREG_SCALE_SERVERS in
// make scale), every operation over REST against mcpregd on it, start-up
// and memory, and a sync of the same fleet from a fake upstream killed
// halfway and resumed. It asserts what must hold whatever the machine
// (the fleet's shape, every operation answered, the sync complete) and
// logs the figures; MCPREG_SCALE_OUT appends the tables to a file. Speed
// is read from the table, never asserted here.
func TestScale(t *testing.T) {
	servers := envInt(t, "MCPREG_SCALE_SERVERS", 2000)
	reps := envInt(t, "MCPREG_SCALE_REPS", 20)
	rounds := envInt(t, "MCPREG_SCALE_ROUNDS", 3)
	bin, _, err := daemon.Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sync := os.Getenv("MCPREG_SCALE_SYNC") != "0" // MCPREG_SCALE_SYNC=0: the operations alone
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		c := config{bin: bin, db: storetest.EmptyDSN(t, dialect), servers: servers, approved: 0.8, reps: reps, rounds: rounds}
		if sync {
			c.syncDB = storetest.EmptyDSN(t, dialect)
		}
		res, err := run(c, testWriter{t})
		if err != nil {
			t.Fatal(err)
		}
		if want := servers * 5 / 2; res.versions != want || res.approved < want*7/10 || res.approved > want*9/10 {
			t.Errorf("fleet: %d versions (%d approved), want %d with about 80%% approved", res.versions, res.approved, want)
		}
		if len(res.ops) != 9 || (sync && (res.sync == nil || res.sync.killedAt <= 0 || res.sync.killedAt >= res.sync.versions)) {
			t.Errorf("measured %d operations, sync %+v", len(res.ops), res.sync)
		}
		var b strings.Builder
		res.markdown(&b)
		t.Log("\n" + b.String())
		if out := os.Getenv("MCPREG_SCALE_OUT"); out != "" {
			f, err := os.OpenFile(out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = f.WriteString(b.String() + "\n")
			_ = f.Close()
		}
	})
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
