package storetest

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that records Fatalf instead of stopping.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

func TestDialects(t *testing.T) {
	t.Setenv(EnvPostgresDSN, "postgres://somewhere/db")
	t.Setenv(EnvRequireAll, "1")
	if got := Dialects(t); !slices.Equal(got, []string{"sqlite3", "postgres"}) {
		t.Errorf("with a DSN: %v, want sqlite3 and postgres", got)
	}

	t.Setenv(EnvPostgresDSN, "")
	r := &recorder{TB: t}
	Dialects(r)
	if !strings.Contains(r.fatal, EnvPostgresDSN) {
		t.Errorf("required but missing DSN: fatal %q, want a failure naming %s", r.fatal, EnvPostgresDSN)
	}
}

func TestDialectsSkipNotice(t *testing.T) {
	t.Setenv(EnvPostgresDSN, "")
	t.Setenv(EnvRequireAll, "")
	stderr := captureStderr(t, func() {
		skipNotice = sync.Once{}
		for range 2 {
			if got := Dialects(t); !slices.Equal(got, []string{"sqlite3"}) {
				t.Errorf("without a DSN: %v, want sqlite3 only", got)
			}
		}
	})
	const notice = "SKIPPING PostgreSQL suites: MCPREG_TEST_POSTGRES_DSN not set"
	if strings.Count(stderr, notice) != 1 {
		t.Errorf("stderr %q, want the notice once", stderr)
	}
}

func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	defer func() { os.Stderr = saved }()
	fn()
	_ = w.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}
