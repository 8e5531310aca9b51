package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpreg/mcpreg/internal/store"
)

func openSQLite(t *testing.T, dsn string) *store.Store {
	t.Helper()
	s, err := store.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if s.Dialect != store.DialectSQLite {
		t.Fatalf("dialect %q, want sqlite3", s.Dialect)
	}
	if err := s.MigrateUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSQLiteFilesArePrivate: the database holds token hashes.
func TestSQLiteFilesArePrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcpreg.db")
	s := openSQLite(t, "sqlite://"+path)
	newFixture(t.Context(), t, s.Client) // writes, so the WAL exists
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s: mode %v, want 0600", filepath.Base(p), m)
		}
	}
}

func TestSQLiteSettings(t *testing.T) {
	s := openSQLite(t, "sqlite://"+filepath.Join(t.TempDir(), "mcpreg.db"))
	for pragma, want := range map[string]string{
		"journal_mode": "wal",
		"foreign_keys": "1",
		"busy_timeout": "10000",
		"synchronous":  "1", // NORMAL
	} {
		var got string
		if err := s.DB.QueryRowContext(t.Context(), "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

func TestSQLiteRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	openSQLite(t, "sqlite://./rel.db")
	openSQLite(t, "sqlite://sub.db")
	for _, name := range []string{"rel.db", "sub.db"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not created in the working directory: %v", name, err)
		}
	}
}

func TestSQLiteMemory(t *testing.T) {
	s := openSQLite(t, "sqlite://:memory:")
	newFixture(t.Context(), t, s.Client)
	if n := s.Client.Server.Query().CountX(t.Context()); n != 1 {
		t.Errorf("%d servers in memory database, want 1", n)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Error(err)
	}
}

func TestSQLiteMissingDirectory(t *testing.T) {
	_, err := store.Open(t.Context(), "sqlite://"+filepath.Join(t.TempDir(), "no", "such", "mcpreg.db"))
	if err == nil {
		t.Fatal("Open in a missing directory succeeded")
	}
}
