package store

import (
	"errors"

	"entgo.io/ent/dialect/sql/sqlgraph"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

// PostgreSQL error codes (SQLSTATE) the store looks at.
const (
	pgUniqueViolation      = "23505"
	pgSerializationFailure = "40001"
	pgDeadlockDetected     = "40P01"
)

// IsUniqueViolation reports whether err, or an error it wraps (ent's
// ConstraintError wraps the driver's), is a unique constraint violation on
// either dialect.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.ExtendedCode == sqlite3.ErrConstraintUnique || se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == pgUniqueViolation
	}
	return sqlgraph.IsUniqueConstraintError(err)
}

// isRetryable reports whether err is lock contention that a fresh attempt of
// the whole transaction may get past: SQLite busy/locked, PostgreSQL
// serialization failure or deadlock.
func isRetryable(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == pgSerializationFailure || pe.Code == pgDeadlockDetected
	}
	return false
}
