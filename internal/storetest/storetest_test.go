package storetest_test

import (
	"context"
	"database/sql"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

func TestOpenGivesIsolatedMigratedStores(t *testing.T) {
	for _, d := range storetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			ctx := t.Context()
			a, b := storetest.Open(t, d), storetest.Open(t, d)
			if a.Dialect != d {
				t.Errorf("dialect %q, want %q", a.Dialect, d)
			}
			a.Client.AuditHead.Create().SaveX(ctx) // the schema is there
			if n := b.Client.AuditHead.Query().CountX(ctx); n != 0 {
				t.Errorf("second store sees %d rows of the first", n)
			}
		})
	}
}

func TestDSN(t *testing.T) {
	for _, d := range storetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			if got := pending(t, storetest.DSN(t, d)); got != 0 {
				t.Errorf("DSN: %d migrations pending, want 0", got)
			}
			if got := pending(t, storetest.EmptyDSN(t, d)); got == 0 {
				t.Error("EmptyDSN: no migration pending")
			}
		})
	}
}

func pending(t *testing.T, dsn string) int {
	t.Helper()
	s, err := store.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	st, err := s.MigrationStatus(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range st {
		if !m.Applied {
			n++
		}
	}
	return n
}

func TestPostgresDatabaseIsDropped(t *testing.T) {
	serverDSN := os.Getenv(storetest.EnvPostgresDSN)
	if serverDSN == "" {
		storetest.Dialects(t)
		t.Skip("no PostgreSQL")
	}
	var name string
	t.Run("uses a database", func(t *testing.T) {
		s := storetest.Open(t, store.DialectPostgres)
		if err := s.DB.QueryRowContext(t.Context(), "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
	})
	db, err := sql.Open("pgx", serverDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	var exists bool
	err = db.QueryRowContext(context.Background(), "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err != nil {
		t.Fatal(err)
	}
	if name == "" || exists {
		t.Errorf("database %q still exists after its test", name)
	}
}
