package registry_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/auditchain"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/auditcheckpoint"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/testkit"
	"github.com/mcpreg/mcpreg/signing"
)

func newKey(t *testing.T) *signing.Key {
	t.Helper()
	k, err := signing.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// checkpointService is a service signing checkpoints with key on st.
func checkpointService(t *testing.T, st *store.Store, key *signing.Key, cp registry.Checkpoints, opts ...registry.Option) *registry.Services {
	t.Helper()
	opts = append([]registry.Option{registry.WithDiscoverySigner(&registry.DiscoverySigner{Keys: &signing.KeySet{Current: key}}),
		registry.WithCheckpoints(cp)}, opts...)
	svc, err := registry.New(context.Background(), st, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// addEvents appends n audited changes (one version submitted each).
func addEvents(t *testing.T, svc *registry.Services, n int) {
	t.Helper()
	for range n {
		submit(t, svc, owner, "io.github.acme/cp", fmt.Sprintf("1.0.%d", nextVersion.Add(1)))
	}
}

var nextVersion atomic.Int64

func checkpointRows(t *testing.T, st *store.Store) []*ent.AuditCheckpoint {
	t.Helper()
	rows, err := st.Client.AuditCheckpoint.Query().Order(ent.Asc(auditcheckpoint.FieldLength)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func latestCheckpoint(t *testing.T, svc *registry.Services, key *signing.Key) *auditchain.Checkpoint {
	t.Helper()
	note, err := svc.Audit.LatestCheckpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cp, keyID, err := auditchain.Open(note, []ed25519.PublicKey{key.Public()})
	if err != nil || keyID != key.ID {
		t.Fatalf("latest checkpoint %q: %v (key %s)", note, err, keyID)
	}
	return cp
}

func TestCheckpointsEveryNEvents(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		key := newKey(t)
		svc := checkpointService(t, st, key, registry.Checkpoints{Every: 2})
		if _, err := svc.Audit.LatestCheckpoint(ctx); !errors.Is(err, registry.ErrNotFound) {
			t.Fatalf("latest before any: %v", err)
		}
		addEvents(t, svc, 5)
		if n, err := svc.Audit.WriteCheckpoints(ctx); err != nil || n != 2 {
			t.Fatalf("wrote %d, %v; want 2 (at 2 and 4)", n, err)
		}
		if n, err := svc.Audit.WriteCheckpoints(ctx); err != nil || n != 0 {
			t.Fatalf("again: wrote %d, %v; want 0", n, err)
		}
		rows := checkpointRows(t, st)
		if len(rows) != 2 || rows[0].Length != 2 || rows[1].Length != 4 {
			t.Fatalf("checkpoints at %v", rows)
		}
		cp := latestCheckpoint(t, svc, key)
		if cp.Length != 4 || cp.Origin != registry.DefaultOrigin(key) || cp.Head != rows[1].HeadHash {
			t.Fatalf("latest = %+v", cp)
		}
		rep, err := svc.Audit.VerifyAuditChainAgainst(ctx, cp)
		if err != nil || !rep.OK || rep.Events != 5 {
			t.Fatalf("verify against checkpoint: %+v %v", rep, err)
		}
		addEvents(t, svc, 1)
		if n, err := svc.Audit.WriteCheckpoints(ctx); err != nil || n != 1 || latestCheckpoint(t, svc, key).Length != 6 {
			t.Fatalf("after event 6: wrote %d, %v", n, err)
		}
		page, next, err := svc.Audit.ListCheckpoints(ctx, registry.Page{Size: 2})
		if err != nil || len(page) != 2 || page[0].GetLength() != 6 || page[1].GetLength() != 4 || next == "" {
			t.Fatalf("first page %v next %q: %v", page, next, err)
		}
		page, next, err = svc.Audit.ListCheckpoints(ctx, registry.Page{Size: 2, Token: next})
		if err != nil || len(page) != 1 || page[0].GetLength() != 2 || next != "" {
			t.Fatalf("second page %v next %q: %v", page, next, err)
		}
	})
}

func TestCheckpointsByTime(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		key := newKey(t)
		var now atomic.Int64
		now.Store(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).UnixMicro())
		clock := func() time.Time { return time.UnixMicro(now.Load()).UTC() }
		svc := checkpointService(t, st, key, registry.Checkpoints{Interval: time.Hour, Origin: "registry.example.com"}, registry.WithClock(clock))
		if n, err := svc.Audit.WriteCheckpoints(ctx); err != nil || n != 0 {
			t.Fatalf("empty log: wrote %d, %v", n, err)
		}
		addEvents(t, svc, 3)
		if n, err := svc.Audit.WriteCheckpoints(ctx); err != nil || n != 1 {
			t.Fatalf("first: wrote %d, %v", n, err)
		}
		addEvents(t, svc, 2)
		now.Add((59 * time.Minute).Microseconds())
		if n, err := svc.Audit.WriteCheckpoints(ctx); err != nil || n != 0 {
			t.Fatalf("59 minutes later: wrote %d, %v", n, err)
		}
		now.Add((time.Minute).Microseconds())
		if n, err := svc.Audit.WriteCheckpoints(ctx); err != nil || n != 1 {
			t.Fatalf("an hour later: wrote %d, %v", n, err)
		}
		cp := latestCheckpoint(t, svc, key)
		if cp.Length != 5 || cp.Origin != "registry.example.com" || !cp.Time.Equal(clock()) {
			t.Fatalf("latest = %+v", cp)
		}
		now.Add((2 * time.Hour).Microseconds())
		if n, err := svc.Audit.WriteCheckpoints(ctx); err != nil || n != 0 {
			t.Fatalf("no new events: wrote %d, %v", n, err)
		}
	})
}

// TestCheckpointRaceAcrossReplicas: two replicas on one database write the
// same boundaries at once; each boundary gets exactly one checkpoint, and
// every checkpoint written is counted by exactly one of them.
func TestCheckpointRaceAcrossReplicas(t *testing.T) {
	for _, d := range storetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			dsn := storetest.DSN(t, d)
			key := newKey(t)
			sa, sb := storetest.OpenReplica(t, dsn), storetest.OpenReplica(t, dsn)
			cfg := registry.Checkpoints{Every: 3, Interval: time.Hour}
			svcs := []*registry.Services{checkpointService(t, sa, key, cfg), checkpointService(t, sb, key, cfg)}
			total := 0
			for round := range raceRounds {
				addEvents(t, svcs[round%2], 4)
				var wrote [2]int
				var errs [2]error
				testkit.Race(2, func(i int) { wrote[i], errs[i] = svcs[i].Audit.WriteCheckpoints(ctx) })
				if errs[0] != nil || errs[1] != nil {
					t.Fatalf("round %d: %v / %v", round, errs[0], errs[1])
				}
				rows := checkpointRows(t, sa)
				if got := wrote[0] + wrote[1]; got != len(rows)-total {
					t.Fatalf("round %d: replicas say they wrote %d+%d, the table grew by %d", round, wrote[0], wrote[1], len(rows)-total)
				}
				total = len(rows)
				seen := map[int64]bool{}
				for _, r := range rows {
					if seen[r.Length] {
						t.Fatalf("round %d: two checkpoints at %d", round, r.Length)
					}
					seen[r.Length] = true
				}
				for l := int64(3); l <= int64(4*(round+1)); l += 3 {
					if !seen[l] {
						t.Fatalf("round %d: no checkpoint at boundary %d (have %v)", round, l, seen)
					}
				}
			}
			// The first round's time checkpoint (the head, 4) was written once.
			if rows := checkpointRows(t, sa); rows[0].Length != 3 || rows[1].Length != 4 || rows[2].Length != 6 {
				t.Fatalf("checkpoints %d, %d, %d; want 3, 4 (time), 6", rows[0].Length, rows[1].Length, rows[2].Length)
			}
			cp := latestCheckpoint(t, svcs[1], key)
			if rep, err := svcs[1].Audit.VerifyAuditChainAgainst(ctx, cp); err != nil || !rep.OK {
				t.Fatalf("verify: %+v %v", rep, err)
			}
		})
	}
}

// TestCheckpointLengthIsUnique: the table itself refuses a second
// checkpoint at a length, whatever code writes it.
func TestCheckpointLengthIsUnique(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		create := func(note string) error {
			return st.Client.AuditCheckpoint.Create().SetLength(7).SetHeadHash(auditchain.Genesis).SetOrigin("o").
				SetKeyID("k").SetNote(note).SetCreatedAt(time.Now()).Exec(ctx)
		}
		if err := create("first"); err != nil {
			t.Fatal(err)
		}
		if err := create("second"); !ent.IsConstraintError(err) {
			t.Fatalf("second checkpoint at 7: %v, want a constraint error", err)
		}
	})
}

// TestCheckpointCatchesConsistentRewrite is the attack: an early event is
// changed and every later hash recomputed in the database, head row
// included. The chain alone still verifies (this is what `audit verify`
// reported on 7c214d5); against a checkpoint signed before, it does not.
func TestCheckpointCatchesConsistentRewrite(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		key := newKey(t)
		svc := checkpointService(t, st, key, registry.Checkpoints{Every: 4})
		addEvents(t, svc, 5)
		if _, err := svc.Audit.WriteCheckpoints(ctx); err != nil {
			t.Fatal(err)
		}
		cp := latestCheckpoint(t, svc, key)
		storetest.RewriteAuditEvent(t, st, 2, "nothing to see")
		rep, err := svc.Audit.VerifyAuditChain(ctx)
		if err != nil || !rep.OK || rep.Events != 5 {
			t.Fatalf("the rewrite is meant to keep the chain consistent: %+v %v", rep, err)
		}
		rep, err = svc.Audit.VerifyAuditChainAgainst(ctx, cp)
		if err != nil || rep.OK || !errors.Is(rep.Cause, auditchain.ErrRewritten) || rep.FirstBrokenSeq != 4 ||
			!strings.Contains(rep.Problem, "at or before 4") {
			t.Fatalf("against the checkpoint: %+v %v, want rewritten at or before 4", rep, err)
		}
		addEvents(t, svc, 4)
		if n, err := svc.Audit.WriteCheckpoints(ctx); err == nil || n != 0 || !strings.Contains(err.Error(), "refusing to sign") {
			t.Fatalf("signing over a rewritten chain: wrote %d, %v", n, err)
		}
	})
}

// TestCheckpointCatchesTruncation: events after the checkpoint's length
// are not needed, events before it are.
func TestCheckpointCatchesTruncation(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		key := newKey(t)
		svc := checkpointService(t, st, key, registry.Checkpoints{Every: 4})
		addEvents(t, svc, 5)
		if _, err := svc.Audit.WriteCheckpoints(ctx); err != nil {
			t.Fatal(err)
		}
		cp := latestCheckpoint(t, svc, key)
		storetest.TruncateAudit(t, st, 4)
		if rep, err := svc.Audit.VerifyAuditChainAgainst(ctx, cp); err != nil || !rep.OK {
			t.Fatalf("cut after the checkpoint: %+v %v", rep, err)
		}
		storetest.TruncateAudit(t, st, 3)
		rep, err := svc.Audit.VerifyAuditChain(ctx)
		if err != nil || !rep.OK || rep.Events != 3 {
			t.Fatalf("the cut is meant to keep the chain consistent: %+v %v", rep, err)
		}
		rep, err = svc.Audit.VerifyAuditChainAgainst(ctx, cp)
		if err != nil || rep.OK || !errors.Is(rep.Cause, auditchain.ErrTruncated) || !strings.Contains(rep.Problem, "has 3 events") {
			t.Fatalf("against the checkpoint: %+v %v, want truncated", rep, err)
		}
	})
}

// TestCheckpointsAcrossKeyRotation: after a rotation the previous key
// (--discovery-previous-key) still verifies the checkpoints it signed, so
// signing goes on with the new key; with the old key dropped the registry
// refuses to sign over a checkpoint it cannot verify.
func TestCheckpointsAcrossKeyRotation(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		oldKey, newKey := newKey(t), newKey(t)
		svc := checkpointService(t, st, oldKey, registry.Checkpoints{Every: 2})
		addEvents(t, svc, 2)
		if n, err := svc.Audit.WriteCheckpoints(ctx); err != nil || n != 1 {
			t.Fatalf("old key: wrote %d, %v", n, err)
		}
		oldNote, _ := svc.Audit.LatestCheckpoint(ctx)
		addEvents(t, svc, 2)

		dropped := checkpointService(t, st, newKey, registry.Checkpoints{Every: 2})
		if n, err := dropped.Audit.WriteCheckpoints(ctx); err == nil || n != 0 || !strings.Contains(err.Error(), "does not verify") {
			t.Fatalf("without the previous key: wrote %d, %v", n, err)
		}
		prev, err := signing.PublishedKeyFor(oldKey, new(time.Now().Add(time.Minute)))
		if err != nil {
			t.Fatal(err)
		}
		signer := &registry.DiscoverySigner{Keys: &signing.KeySet{Current: newKey, Previous: []signing.PublishedKey{prev}}}
		rotated, err := registry.New(ctx, st, registry.WithDiscoverySigner(signer), registry.WithCheckpoints(registry.Checkpoints{Every: 2}))
		if err != nil {
			t.Fatal(err)
		}
		if n, err := rotated.Audit.WriteCheckpoints(ctx); err != nil || n != 1 {
			t.Fatalf("with the previous key: wrote %d, %v", n, err)
		}
		cp := latestCheckpoint(t, rotated, newKey)
		if cp.Length != 4 || cp.Origin != registry.DefaultOrigin(oldKey) {
			t.Fatalf("after rotation: %+v, want length 4 under the first origin", cp)
		}
		if _, _, err := auditchain.Open(oldNote, rotated.Audit.CheckpointKeys()); err != nil {
			t.Fatalf("the old note with the rotated keys: %v", err)
		}
	})
}

// TestCheckpointsDeletedStopSigning: whoever rewrites the log may delete
// the checkpoints too; a replica that saw one refuses to start over and
// sign the rewritten log.
func TestCheckpointsDeletedStopSigning(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		key := newKey(t)
		svc := checkpointService(t, st, key, registry.Checkpoints{Every: 2})
		addEvents(t, svc, 3)
		if n, err := svc.Audit.WriteCheckpoints(ctx); err != nil || n != 1 {
			t.Fatalf("wrote %d, %v", n, err)
		}
		storetest.RewriteAuditEvent(t, st, 1, "nothing to see")
		if _, err := st.DB.ExecContext(ctx, "DELETE FROM audit_checkpoints"); err != nil {
			t.Fatal(err)
		}
		addEvents(t, svc, 1)
		if n, err := svc.Audit.WriteCheckpoints(ctx); err == nil || n != 0 || !strings.Contains(err.Error(), "checkpoints were deleted") {
			t.Fatalf("after the checkpoints were deleted: wrote %d, %v", n, err)
		}
		if rows := checkpointRows(t, st); len(rows) != 0 {
			t.Fatalf("signed %d checkpoints over the rewritten log", len(rows))
		}
	})
}
