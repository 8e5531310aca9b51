package server_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/fetch"
)

// everything is the reference server from the npm registry, prepared once
// per test binary.
var everything struct {
	once sync.Once
	dir  string
	err  error
}

// everythingNPMDir is an --scan-npm-dir (reachable by the scan user)
// holding @modelcontextprotocol/server-everything@2026.8.31 prepared from
// the npm registry: a cold npm install of it can take longer than the
// HTTP write timeout of the live submission that would trigger it.
func everythingNPMDir(t *testing.T) string {
	t.Helper()
	everything.once.Do(func() {
		everything.dir, everything.err = os.MkdirTemp("", "mcpreg-npm-")
		if everything.err != nil {
			return
		}
		if everything.err = os.Chmod(everything.dir, 0o755); everything.err != nil {
			return
		}
		want, err := attest.ParseDigest(everythingIntegrity)
		if err != nil {
			everything.err = err
			return
		}
		n := &fetch.NPM{Dir: everything.dir, Timeout: 8 * time.Minute}
		_, everything.err = n.Fetch(context.Background(), "@modelcontextprotocol/server-everything", "2026.8.31", want)
	})
	if everything.err != nil {
		t.Fatalf("preparing the reference server: %v", everything.err)
	}
	return everything.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if everything.dir != "" {
		_ = os.RemoveAll(everything.dir)
	}
	os.Exit(code)
}
