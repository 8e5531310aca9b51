package store_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"ariga.io/atlas/sql/migrate"
	entsql "entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/schema"

	entmigrate "github.com/mcpreg/mcpreg/internal/ent/migrate"
	"github.com/mcpreg/mcpreg/internal/migrations"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

func TestMigrateUpIsIdempotent(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		for range 2 {
			if err := s.MigrateUp(ctx); err != nil {
				t.Fatalf("MigrateUp again: %v", err)
			}
		}
		st := migrationStatus(ctx, t, s)
		if want := len(embedded(t, s.Dialect)); len(st) != want {
			t.Fatalf("status lists %d migrations, want %d", len(st), want)
		}
		for _, m := range st {
			if !m.Applied || m.AppliedAt.IsZero() {
				t.Errorf("%s: applied=%v at %v after MigrateUp", m.Name, m.Applied, m.AppliedAt)
			}
		}
	})
}

func TestMigrationStatusOfEmptyDatabase(t *testing.T) {
	for _, dialect := range storetest.Dialects(t) {
		t.Run(dialect, func(t *testing.T) {
			ctx := t.Context()
			s, err := store.Open(ctx, storetest.EmptyDSN(t, dialect))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = s.Close() }()
			st := migrationStatus(ctx, t, s)
			names := embedded(t, dialect)
			if len(st) != len(names) {
				t.Fatalf("status lists %d migrations, want %d", len(st), len(names))
			}
			for i, m := range st {
				if m.Applied || m.Name != names[i] || m.Version <= 0 {
					t.Errorf("status[%d] = %+v, want pending %s", i, m, names[i])
				}
			}
		})
	}
}

// TestSchemaMatchesMigrations fails when ent/schema changed without
// regenerating the migrations (go run ./migrations/gen).
func TestSchemaMatchesMigrations(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, s *store.Store) {
		if d := schemaDiff(t.Context(), t, s); d != "" {
			t.Fatalf("ent schema and %s migrations disagree; run go run ./migrations/gen. Missing in the migrations:\n%s", s.Dialect, d)
		}
	})
}

// TestSchemaDiffSeesDrift shows that schemaDiff can fail.
func TestSchemaDiffSeesDrift(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		if _, err := s.DB.ExecContext(ctx, "DROP INDEX version_state"); err != nil {
			t.Fatal(err)
		}
		if d := schemaDiff(ctx, t, s); !strings.Contains(d, "version_state") {
			t.Fatalf("diff after dropping an index = %q, want it recreated", d)
		}
	})
}

// schemaDiff returns the statements that would bring the database to the
// ent schema, dropped columns and indexes included; "" when they agree.
func schemaDiff(ctx context.Context, t *testing.T, s *store.Store) string {
	t.Helper()
	dir := &migrate.MemDir{}
	m, err := schema.NewMigrate(entsql.OpenDB(s.Dialect, s.DB),
		schema.WithDir(dir),
		schema.WithDropColumn(true),
		schema.WithDropIndex(true),
		schema.WithErrNoPlan(true),
	)
	if err != nil {
		t.Fatal(err)
	}
	err = m.NamedDiff(ctx, "drift", entmigrate.Tables...)
	if errors.Is(err, migrate.ErrNoPlan) {
		return ""
	}
	if err != nil {
		t.Fatalf("diff: %v", err)
	}
	files, err := dir.Files()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range files {
		b.Write(f.Bytes())
	}
	return b.String()
}

func migrationStatus(ctx context.Context, t *testing.T, s *store.Store) []store.MigrationInfo {
	t.Helper()
	st, err := s.MigrationStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func embedded(t *testing.T, dialect string) []string {
	t.Helper()
	fsys, err := migrations.FS(dialect)
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("embedded %s migrations: %v %v", dialect, names, err)
	}
	return names
}
