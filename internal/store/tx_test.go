package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

func createServer(ctx context.Context, tx *ent.Tx, name string) error {
	_, err := tx.Server.Create().SetName(name).SetNamespace("io.github.acme").SetOwner("acme").Save(ctx)
	return err
}

func serverExists(ctx context.Context, t *testing.T, s *store.Store, name string) bool {
	t.Helper()
	ok, err := s.Client.Server.Query().Where(server.Name(name)).Exist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestWithTxCommitsAndRollsBack(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		boom := errors.New("boom")
		err := s.WithTx(ctx, func(tx *ent.Tx) error {
			if err := createServer(ctx, tx, "io.github.acme/failed"); err != nil {
				return err
			}
			return fmt.Errorf("later step: %w", boom)
		})
		if !errors.Is(err, boom) {
			t.Fatalf("WithTx = %v, want fn's error", err)
		}
		if serverExists(ctx, t, s, "io.github.acme/failed") {
			t.Error("row of a failed transaction was committed")
		}

		func() {
			defer func() {
				if v := recover(); v != "panic in fn" {
					t.Errorf("recovered %v, want the panic to go on", v)
				}
			}()
			_ = s.WithTx(ctx, func(tx *ent.Tx) error {
				if err := createServer(ctx, tx, "io.github.acme/panicked"); err != nil {
					return err
				}
				panic("panic in fn")
			})
		}()
		if serverExists(ctx, t, s, "io.github.acme/panicked") {
			t.Error("row of a panicked transaction was committed")
		}

		// The rolled-back transactions released their locks and connections.
		if err := s.WithTx(ctx, func(tx *ent.Tx) error { return createServer(ctx, tx, "io.github.acme/ok") }); err != nil {
			t.Fatal(err)
		}
		if !serverExists(ctx, t, s, "io.github.acme/ok") {
			t.Error("committed row missing")
		}
	})
}

func TestWithTxRetriesContention(t *testing.T) {
	contention := []error{
		sqlite3.Error{Code: sqlite3.ErrBusy},
		sqlite3.Error{Code: sqlite3.ErrLocked},
		&pgconn.PgError{Code: "40001"},
		&pgconn.PgError{Code: "40P01"},
	}
	storetest.ForEachDialect(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		for i, cause := range contention {
			name := fmt.Sprintf("io.github.acme/retried-%d", i)
			calls := 0
			err := s.WithTx(ctx, func(tx *ent.Tx) error {
				calls++
				if err := createServer(ctx, tx, name); err != nil {
					return err
				}
				if calls < 3 {
					return fmt.Errorf("step: %w", cause)
				}
				return nil
			})
			if err != nil || calls != 3 {
				t.Errorf("%v: WithTx = %v after %d calls, want success on the 3rd", cause, err, calls)
			}
			if n := s.Client.Server.Query().Where(server.Name(name)).CountX(ctx); n != 1 {
				t.Errorf("%v: %d rows committed, want 1 (failed attempts rolled back)", cause, n)
			}
		}

		calls := 0
		err := s.WithTx(ctx, func(*ent.Tx) error { calls++; return contention[0] })
		if calls != store.DefaultTxAttempts || !errors.Is(err, contention[0]) {
			t.Errorf("endless contention: %d calls, err %v; want %d calls and the cause", calls, err, store.DefaultTxAttempts)
		}

		calls = 0
		plain := errors.New("not contention")
		if err := s.WithTx(ctx, func(*ent.Tx) error { calls++; return plain }); calls != 1 || !errors.Is(err, plain) {
			t.Errorf("plain error: %d calls, err %v; want 1 call and the error", calls, err)
		}
	})
}

// TestSQLiteBusyIsRetried makes a second writer time out on SQLite's lock
// (busy timeout 1ms) while a first transaction holds it: with one attempt it
// fails as busy, with more WithTx retries until the lock is free.
func TestSQLiteBusyIsRetried(t *testing.T) {
	ctx := t.Context()
	dsn := storetest.DSN(t, store.DialectSQLite)
	open := func(attempts int) *store.Store {
		s, err := store.Open(ctx, dsn, store.WithBusyTimeout(time.Millisecond), store.WithTxAttempts(attempts))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	holder, once, patient := open(1), open(1), open(100)

	holding, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- holder.WithTx(ctx, func(tx *ent.Tx) error {
			close(holding)
			<-release
			return createServer(ctx, tx, "io.github.acme/first")
		})
	}()
	<-holding

	err := once.WithTx(ctx, func(tx *ent.Tx) error { return createServer(ctx, tx, "io.github.acme/once") })
	var se sqlite3.Error
	if !errors.As(err, &se) || se.Code != sqlite3.ErrBusy {
		t.Fatalf("writer with one attempt against a held lock: %v, want SQLITE_BUSY", err)
	}

	calls := 0
	second := make(chan error, 1)
	go func() {
		second <- patient.WithTx(ctx, func(tx *ent.Tx) error {
			calls++
			return createServer(ctx, tx, "io.github.acme/second")
		})
	}()
	time.Sleep(20 * time.Millisecond) // let the second writer meet the lock
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatalf("patient writer: %v", err)
	}
	if calls != 1 {
		t.Errorf("fn ran %d times, want once (BEGIN IMMEDIATE fails before fn)", calls)
	}
	if !serverExists(ctx, t, patient, "io.github.acme/second") {
		t.Error("patient writer's row missing")
	}
}
