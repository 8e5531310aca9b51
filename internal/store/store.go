package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/mcpreg/mcpreg/internal/ent"
)

// Dialects a Store can speak, as in Store.Dialect.
const (
	DialectSQLite   = "sqlite3"
	DialectPostgres = "postgres"
)

// ErrUnsupportedDSN is returned by Open for a DSN of an unknown scheme.
var ErrUnsupportedDSN = errors.New(`unsupported database DSN: want "sqlite://PATH", "postgres://..." or "postgresql://..."`)

// Store is an open database with its ent client.
type Store struct {
	Client  *ent.Client
	DB      *sql.DB
	Dialect string // DialectSQLite or DialectPostgres

	cfg config
}

// Open connects to the database named by dsn and checks that it answers.
// It does not migrate; call MigrateUp for that.
//
// Accepted DSNs: "sqlite://PATH" (relative or absolute path; the file is
// created with mode 0600), "sqlite://:memory:" (a private in-memory database
// on one connection, for tests), and "postgres://..." or "postgresql://..."
// (pgx connection URLs). Errors never contain the DSN's password.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	target, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	s, err := open(ctx, target, newConfig(target.dialect, opts))
	if err != nil {
		return nil, target.redact(fmt.Errorf("store: open %s: %w", target.dialect, err))
	}
	return s, nil
}

func open(ctx context.Context, t *dsnTarget, cfg config) (*Store, error) {
	var (
		db  *sql.DB
		err error
	)
	switch t.dialect {
	case DialectSQLite:
		db, err = openSQLite(t, cfg)
	default:
		db, err = openPostgres(t, cfg)
	}
	if err != nil {
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	client := ent.NewClient(ent.Driver(entsql.OpenDB(t.dialect, db)))
	client.Use(microsecondUTC)
	return &Store{Client: client, DB: db, Dialect: t.dialect, cfg: cfg}, nil
}

// Ping checks that the database answers (readiness).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.DB.PingContext(ctx); err != nil {
		return fmt.Errorf("store: ping %s: %w", s.Dialect, err)
	}
	return nil
}

// Close closes the ent client and the connection pool.
func (s *Store) Close() error {
	return s.Client.Close()
}

// DialectName is the store's dialect (DialectSQLite, DialectPostgres).
func (s *Store) DialectName() string { return s.Dialect }

// RowLocks reports whether SELECT ... FOR UPDATE is available. SQLite has no
// row locks; its write transactions start with the database write lock.
func (s *Store) RowLocks() bool { return s.Dialect == DialectPostgres }
