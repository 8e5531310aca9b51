package storetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpreg/mcpreg/internal/store"
)

// Environment variables read by this package.
const (
	EnvPostgresDSN = "MCPREG_TEST_POSTGRES_DSN"
	EnvRequireAll  = "MCPREG_TEST_REQUIRE_ALL"
)

var skipNotice sync.Once

// Dialects returns the dialects to test: "sqlite3", and "postgres" when
// MCPREG_TEST_POSTGRES_DSN is set. Without it, it fails the test if
// MCPREG_TEST_REQUIRE_ALL=1, else says loudly (once, on stderr) that the
// PostgreSQL suites are skipped.
func Dialects(t testing.TB) []string {
	t.Helper()
	if os.Getenv(EnvPostgresDSN) != "" {
		return []string{store.DialectSQLite, store.DialectPostgres}
	}
	const msg = "SKIPPING PostgreSQL suites: " + EnvPostgresDSN + " not set"
	if os.Getenv(EnvRequireAll) == "1" {
		t.Fatalf("%s=1 but %s is not set (run .ci/postgres.sh)", EnvRequireAll, EnvPostgresDSN)
		return nil
	}
	skipNotice.Do(func() {
		fmt.Fprintf(os.Stderr, "\n***** %s *****\n\n", msg)
	})
	t.Log(msg)
	return []string{store.DialectSQLite}
}

// ForEachDialect runs fn as a subtest per dialect of Dialects, each with a
// fresh, migrated store.
func ForEachDialect(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	EachDialect(t, func(t *testing.T, dialect string) { fn(t, Open(t, dialect)) })
}

// EachDialect runs fn as a subtest named by each dialect of Dialects, for
// tests that make their own database of it (servertest.Start, DSN).
func EachDialect(t *testing.T, fn func(t *testing.T, dialect string)) {
	t.Helper()
	for _, d := range Dialects(t) {
		t.Run(d, func(t *testing.T) { fn(t, d) })
	}
}

// Open returns a fresh, migrated store of dialect, closed (and on
// PostgreSQL dropped) when the test ends.
func Open(t testing.TB, dialect string) *store.Store {
	t.Helper()
	dsn := EmptyDSN(t, dialect)
	var opts []store.Option
	if dialect == store.DialectPostgres {
		opts = append(opts, store.WithMaxIdleConns(2)) // many databases on one test server
	}
	s, err := store.Open(context.Background(), dsn, opts...)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("storetest: close %s store: %v", dialect, err)
		}
	})
	if err := s.MigrateUp(context.Background()); err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return s
}

// DSN returns the DSN of a fresh, migrated database of dialect, removed when
// the test ends: for tests that hand a database to the mcpregd binary.
func DSN(t testing.TB, dialect string) string {
	t.Helper()
	dsn := EmptyDSN(t, dialect)
	s, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	defer func() { _ = s.Close() }()
	if err := s.MigrateUp(context.Background()); err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return dsn
}

// EmptyDSN is DSN without the migrations: a database with no tables.
func EmptyDSN(t testing.TB, dialect string) string {
	t.Helper()
	switch dialect {
	case store.DialectSQLite:
		return "sqlite://" + filepath.Join(t.TempDir(), "mcpreg.db")
	case store.DialectPostgres:
		return postgresDatabase(t)
	default:
		t.Fatalf("storetest: unknown dialect %q", dialect)
		return ""
	}
}

// OpenReplica opens another store on the database at dsn (a second
// replica of what Open or DSN made), closed when the test ends.
func OpenReplica(t testing.TB, dsn string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return st
}
