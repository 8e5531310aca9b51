package registry

import (
	"context"
	"sync"
	"time"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/auditevent"
)

// DefaultChangePoll is how often WatchChanges looks for changes made by
// other replicas.
const DefaultChangePoll = 200 * time.Millisecond

// WatchChanges keeps this replica's caches in step with changes committed
// by others on the same database: every change appends to the audit
// chain, so the replica reads the events after the last one it saw and
// drops what they make stale (the discovery index; cached tokens after a
// revocation). It runs until ctx ends. Changes made through this replica
// already did so at commit; seeing them again costs nothing.
func (s *Audit) WatchChanges(ctx context.Context, every time.Duration) error {
	if every <= 0 {
		every = DefaultChangePoll
	}
	// From the chain's head when the service was made, not when the watch
	// starts: a cache filled in between must not miss a change committed
	// in between (seeing a change twice only costs a rebuild).
	last := s.feedStart
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		next, err := s.applyChanges(ctx, last)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			s.log.WarnContext(ctx, "watching for changes of other replicas", "err", err)
			continue
		}
		last = next
	}
}

// applyChanges reads audit events after seq and invalidates what they
// touch; it returns the last sequence read.
func (s *Audit) applyChanges(ctx context.Context, seq int64) (int64, error) {
	evs, err := s.store.Client.AuditEvent.Query().Where(auditevent.SeqGT(seq)).Order(ent.Asc(auditevent.FieldSeq)).
		Select(auditevent.FieldSeq, auditevent.FieldAction).Limit(1000).All(ctx)
	if err != nil {
		return seq, err
	}
	for _, ev := range evs {
		if s.applied.take(ev.Seq) {
			seq = ev.Seq
			continue // committed through this replica, which applied it then
		}
		for _, f := range s.listeners {
			f(ev.Action)
		}
		s.changed(ev.Action)
		seq = ev.Seq
	}
	return seq, nil
}

// appliedSeqs remembers audit sequence numbers whose effects this replica
// applied at commit, so WatchChanges does not apply them again (a second
// rebuild would re-sign discovery answers and change their ETags for
// nothing). Bounded: forgetting only costs a needless rebuild.
type appliedSeqs struct {
	mu sync.Mutex
	m  map[int64]bool
}

func (a *appliedSeqs) add(seq int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil || len(a.m) > 10000 {
		a.m = map[int64]bool{}
	}
	a.m[seq] = true
}

func (a *appliedSeqs) take(seq int64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	ok := a.m[seq]
	delete(a.m, seq)
	return ok
}

// changed tells the caches of an audited action that may change what
// discovery serves, committed here or by another replica.
func (s *core) changed(action string) {
	if discoveryNeutral[action] {
		return
	}
	for _, f := range s.caches {
		f(action)
	}
}
