package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/auditevent"
	"github.com/mcpreg/mcpreg/internal/ent/audithead"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// appendEvent appends to the audit chain the way the audit log will: lock
// the head row, write the next event, move the head.
func appendEvent(ctx context.Context, tx *ent.Tx, headID int) error {
	head, err := tx.AuditHead.Query().Where(audithead.ID(headID)).ForUpdate().Only(ctx)
	if err != nil {
		return err
	}
	time.Sleep(time.Millisecond) // widen the read-modify-write window
	next := head.Seq + 1
	hash := fmt.Sprintf("h%d", next)
	if _, err := tx.AuditEvent.Create().SetSeq(next).SetOccurredAt(time.Now()).SetActor("a").
		SetAction("test").SetSubject("s").SetPrevHash(head.Hash).SetHash(hash).Save(ctx); err != nil {
		return err
	}
	return tx.AuditHead.UpdateOne(head).SetSeq(next).SetHash(hash).Exec(ctx)
}

// TestForUpdateSerialisesAppends runs concurrent appenders: without the row
// lock they would read the same head, and lose updates or collide on seq.
func TestForUpdateSerialisesAppends(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		head := s.Client.AuditHead.Create().SaveX(ctx)
		const workers, rounds = 8, 5
		var wg sync.WaitGroup
		errs := make(chan error, workers*rounds)
		for range workers {
			wg.Go(func() {
				for range rounds {
					errs <- s.WithTx(ctx, func(tx *ent.Tx) error { return appendEvent(ctx, tx, head.ID) })
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("append: %v", err)
			}
		}
		got := s.Client.AuditHead.GetX(ctx, head.ID)
		if got.Seq != workers*rounds {
			t.Errorf("head at seq %d, want %d", got.Seq, workers*rounds)
		}
		events := s.Client.AuditEvent.Query().Order(auditevent.BySeq()).AllX(ctx)
		prev := ""
		for i, e := range events {
			if e.Seq != int64(i+1) || e.PrevHash != prev {
				t.Fatalf("event %d: seq %d prev %q, want seq %d prev %q (chain forked)", i, e.Seq, e.PrevHash, i+1, prev)
			}
			prev = e.Hash
		}
	})
}
