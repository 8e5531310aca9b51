package migrations_test

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"ariga.io/atlas/sql/migrate"

	"github.com/mcpreg/mcpreg/internal/migrations"
)

var gooseName = regexp.MustCompile(`^[0-9]{14}_[a-z0-9_]+\.sql$`)

func TestFilesAreGooseMigrations(t *testing.T) {
	for _, dialect := range []string{"sqlite3", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			fsys, err := migrations.FS(dialect)
			if err != nil {
				t.Fatal(err)
			}
			names := sqlFiles(t, fsys)
			if len(names) == 0 {
				t.Fatal("no migrations embedded")
			}
			if !strings.HasSuffix(names[0], "_init.sql") {
				t.Errorf("first migration %s, want *_init.sql", names[0])
			}
			for _, n := range names {
				if !gooseName.MatchString(n) {
					t.Errorf("%s: not a goose file name (VERSION_name.sql)", n)
				}
				b, _ := fs.ReadFile(fsys, n)
				if !strings.HasPrefix(string(b), "-- +goose Up\n") || !strings.Contains(string(b), "\n-- +goose Down\n") {
					t.Errorf("%s: lacks the goose Up/Down annotations", n)
				}
			}
		})
	}
}

// TestChecksums fails when a migration was edited, added or removed by hand
// instead of through ./gen: atlas.sum no longer matches.
func TestChecksums(t *testing.T) {
	for _, dialect := range []string{"sqlite3", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			fsys, err := migrations.FS(dialect)
			if err != nil {
				t.Fatal(err)
			}
			dir := &migrate.MemDir{}
			entries, err := fs.ReadDir(fsys, ".")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				b, err := fs.ReadFile(fsys, e.Name())
				if err != nil {
					t.Fatal(err)
				}
				if err := dir.WriteFile(e.Name(), b); err != nil {
					t.Fatal(err)
				}
			}
			if err := migrate.Validate(dir); err != nil {
				t.Fatalf("atlas.sum: %v (regenerate with go run ./migrations/gen, never edit migrations by hand)", err)
			}
		})
	}
}

func TestUnknownDialect(t *testing.T) {
	if _, err := migrations.FS("mysql"); err == nil {
		t.Fatal("FS(mysql) succeeded")
	}
}

func sqlFiles(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	return names
}
