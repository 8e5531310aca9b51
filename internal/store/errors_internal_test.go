package store

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

func TestErrorClasses(t *testing.T) {
	tests := []struct {
		name              string
		err               error
		unique, retryable bool
	}{
		{"nil", nil, false, false},
		{"plain", errors.New("x"), false, false},
		{"sqlite unique", sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintUnique}, true, false},
		{"sqlite primary key", sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintPrimaryKey}, true, false},
		{"sqlite foreign key", sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintForeignKey}, false, false},
		{"sqlite busy", sqlite3.Error{Code: sqlite3.ErrBusy}, false, true},
		{"sqlite locked", fmt.Errorf("wrapped: %w", sqlite3.Error{Code: sqlite3.ErrLocked}), false, true},
		{"pg unique", &pgconn.PgError{Code: "23505"}, true, false},
		{"pg foreign key", &pgconn.PgError{Code: "23503"}, false, false},
		{"pg serialization", fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: "40001"}), false, true},
		{"pg deadlock", &pgconn.PgError{Code: "40P01"}, false, true},
		{"pg lock timeout", &pgconn.PgError{Code: "55P03"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsUniqueViolation(tt.err); got != tt.unique {
				t.Errorf("IsUniqueViolation = %v, want %v", got, tt.unique)
			}
			if tt.err == nil {
				return
			}
			if got := isRetryable(tt.err); got != tt.retryable {
				t.Errorf("isRetryable = %v, want %v", got, tt.retryable)
			}
		})
	}
}

func TestBackoffBounded(t *testing.T) {
	for attempt := 1; attempt < 20; attempt++ {
		if d := backoff(attempt); d <= 0 || d > 240e6 {
			t.Errorf("backoff(%d) = %v, want in (0, 240ms]", attempt, d)
		}
	}
}
