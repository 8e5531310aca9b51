package identity

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/signinthrottle"
)

// Sign-in throttling: per name and per remote address, a burst of failures
// then one attempt every failureInterval. The budgets live in the database
// (SigninThrottle rows, a GCRA token bucket per key), so every replica on
// it spends from the same ones.
const (
	failureBurst    = 5
	failureInterval = 20 * time.Second
	// throttleRetention is how long after its tat has passed a row is
	// kept; a passed tat is a full budget, like a missing row.
	throttleRetention = time.Hour
	// maxThrottleKey is the longest key stored as is.
	maxThrottleKey = 300
	// recordTimeout bounds recording a failure, which outlives the request.
	recordTimeout = 10 * time.Second
)

// throttleKeys are the budgets one sign-in attempt draws on, sorted so
// that every transaction locks their rows in the same order.
func throttleKeys(name, remote string) []string {
	keys := []string{throttleKey("name:", name), throttleKey("addr:", remote)}
	slices.Sort(keys)
	return keys
}

// throttleKey is kind+v, or kind+"sha256:"+hex(sha256(v)) when that would
// not store as is (too long, not UTF-8, or holding NUL, which PostgreSQL
// text refuses).
func throttleKey(kind, v string) string {
	k := kind + v
	if len(k) <= maxThrottleKey && utf8.ValidString(k) && !strings.ContainsRune(k, 0) {
		return k
	}
	sum := sha256.Sum256([]byte(v))
	return kind + "sha256:" + hex.EncodeToString(sum[:])
}

// throttleAllows reports whether a key whose theoretical arrival time is
// tat has an attempt left at now.
func throttleAllows(tat, now time.Time) bool {
	return !tat.Add(-(failureBurst - 1) * failureInterval).After(now)
}

// takeAttempt spends one attempt of every key at now, in one transaction
// holding their rows, unless one of them has none left: then it spends
// nothing and reports false. Concurrent attempts on one key thus cannot
// all pass a check made before any of them is recorded. It goes on when
// ctx is canceled: a client that hangs up does not get its attempt back.
func (s *Service) takeAttempt(ctx context.Context, now time.Time, keys []string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		// Every key gets a row first (a tat of now is a full budget), so
		// that there is a row to lock: concurrent first attempts on a key
		// would otherwise all find none and all pass.
		for _, k := range keys {
			err := tx.SigninThrottle.Create().SetKey(k).SetTat(now).OnConflictColumns(signinthrottle.FieldKey).DoNothing().Exec(ctx)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		for _, k := range keys {
			row, err := s.lockThrottle(ctx, tx, k)
			if ent.IsNotFound(err) {
				continue // deleted as stale meanwhile: a full budget; spendAttempt creates it
			} else if err != nil {
				return err
			}
			if !throttleAllows(row.Tat, now) {
				return errNoAttempt // roll back: a refusal writes nothing
			}
		}
		for _, k := range keys {
			if err := s.spendAttempt(ctx, tx, k, now); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, errNoAttempt) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("sign-in throttle: %w", err)
	}
	return true, nil
}

// errNoAttempt rolls back the transaction of an attempt that is refused.
var errNoAttempt = errors.New("no attempt left")

// giveBackAttempt returns the attempt a successful sign-in took: only
// failures count against a name or an address.
func (s *Service) giveBackAttempt(ctx context.Context, keys []string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		for _, k := range keys {
			row, err := s.lockThrottle(ctx, tx, k)
			if ent.IsNotFound(err) {
				continue
			} else if err != nil {
				return err
			}
			if err := tx.SigninThrottle.UpdateOne(row).SetTat(row.Tat.Add(-failureInterval)).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sign-in throttle: %w", err)
	}
	return nil
}

// dropStaleThrottles deletes rows that have long been back to a full
// budget (a passed tat is a full budget, like a missing row).
func (s *Service) dropStaleThrottles(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	n, err := s.store.Client.SigninThrottle.Delete().Where(signinthrottle.TatLT(s.now().Add(-throttleRetention))).Exec(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "delete stale sign-in throttles", "err", err)
	} else if n > 0 {
		s.log.DebugContext(ctx, "deleted stale sign-in throttles", "rows", n)
	}
}

// spendAttempt moves key's tat to max(tat, now) + failureInterval, under a
// row lock on PostgreSQL (SQLite write transactions hold the database lock).
// A missing row is created; an insert racing another's is re-read.
func (s *Service) spendAttempt(ctx context.Context, tx *ent.Tx, key string, now time.Time) error {
	row, err := s.lockThrottle(ctx, tx, key)
	if ent.IsNotFound(err) {
		_, cerr := tx.SigninThrottle.Create().SetKey(key).SetTat(now.Add(failureInterval)).
			OnConflictColumns(signinthrottle.FieldKey).DoNothing().ID(ctx)
		if cerr == nil {
			return nil
		} else if !errors.Is(cerr, sql.ErrNoRows) {
			return cerr
		}
		row, err = s.lockThrottle(ctx, tx, key)
	}
	if err != nil {
		return err
	}
	tat := row.Tat
	if tat.Before(now) {
		tat = now
	}
	return tx.SigninThrottle.UpdateOne(row).SetTat(tat.Add(failureInterval)).Exec(ctx)
}

func (s *Service) lockThrottle(ctx context.Context, tx *ent.Tx, key string) (*ent.SigninThrottle, error) {
	q := tx.SigninThrottle.Query().Where(signinthrottle.Key(key))
	if s.store.RowLocks() {
		q = q.ForUpdate()
	}
	return q.Only(ctx)
}
