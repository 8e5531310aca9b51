package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mcpreg/mcpreg/internal/ent"
)

// WithTx runs fn in a transaction and commits it when fn returns nil; it
// rolls back when fn returns an error or panics (the panic goes on).
//
// A transaction that fails on lock contention (SQLite busy/locked,
// PostgreSQL serialization failure 40001 or deadlock 40P01) at BEGIN, in fn,
// or at COMMIT is rolled back and run again from the start, at most
// WithTxAttempts times in all, after a short random backoff. fn must
// therefore do nothing outside the transaction that cannot be repeated, and
// must return such errors (wrapped is fine) rather than swallow them. Do not
// nest WithTx: on SQLite the inner BEGIN waits for the outer one's lock.
func (s *Store) WithTx(ctx context.Context, fn func(tx *ent.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := s.runTx(ctx, fn)
		if err == nil || !isRetryable(err) || attempt >= s.cfg.txAttempts {
			return err
		}
		if werr := sleep(ctx, backoff(attempt)); werr != nil {
			return errors.Join(err, werr)
		}
	}
}

func (s *Store) runTx(ctx context.Context, fn func(tx *ent.Tx) error) error {
	tx, err := s.Client.Tx(ctx)
	if err != nil {
		return fmt.Errorf("store: begin transaction: %w", err)
	}
	defer func() {
		if v := recover(); v != nil {
			_ = tx.Rollback()
			panic(v)
		}
	}()
	if err := fn(tx); err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			return errors.Join(err, fmt.Errorf("store: rollback: %w", rerr))
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// backoff grows from about 10ms, doubling per attempt up to 160ms, with
// jitter so that contenders do not collide again in step.
func backoff(attempt int) time.Duration {
	base := 10 * time.Millisecond << min(attempt-1, 4)
	return base/2 + rand.N(base)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
