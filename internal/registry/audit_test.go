package registry_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
)

func TestAuditChainCatchesDirectEdits(t *testing.T) {
	tampers := []struct {
		name, sql string
		broken    int64
		says      string
	}{
		{"reason rewritten", "UPDATE audit_events SET reason = 'nothing to see' WHERE seq = 3", 3, "altered"},
		{"actor rewritten", "UPDATE audit_events SET actor = 'mallory' WHERE seq = 2", 2, "altered"},
		{"hash recomputed elsewhere", "UPDATE audit_events SET prev_hash = 'sha256:00' WHERE seq = 4", 4, "prev_hash"},
		{"event deleted in the middle", "DELETE FROM audit_events WHERE seq = 2", 3, "gap"},
		{"last event deleted", "DELETE FROM audit_events WHERE seq = 5", 5, "removed"},
	}
	for _, tc := range tampers {
		t.Run(tc.name, func(t *testing.T) {
			forEach(t, func(t *testing.T, svc *registry.Services, st *store.Store) {
				ctx := context.Background()
				for i := range 3 {
					submit(t, svc, owner, "io.github.acme/audit", fmt.Sprintf("1.0.%d", i))
				}
				for _, a := range []registry.Action{registry.ActionApprove, registry.ActionQuarantine} {
					if _, err := svc.Review.Transition(ctx, reviewer, a, "io.github.acme/audit", "1.0.0", "r"); err != nil {
						t.Fatal(err)
					}
				}
				rep, err := svc.Audit.VerifyAuditChain(ctx)
				if err != nil || !rep.OK || rep.Events != 5 {
					t.Fatalf("before tampering: %+v %v", rep, err)
				}
				if _, err := st.DB.ExecContext(ctx, tc.sql); err != nil {
					t.Fatal(err)
				}
				rep, err = svc.Audit.VerifyAuditChain(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if rep.OK || rep.FirstBrokenSeq != tc.broken || !strings.Contains(rep.Problem, tc.says) {
					t.Fatalf("after %q: %+v, want broken at %d saying %q", tc.sql, rep, tc.broken, tc.says)
				}
			})
		})
	}
}

// TestAuditChainUnderConcurrentWriters runs many writers at once; the chain
// must stay one line with no gaps or forks.
func TestAuditChainUnderConcurrentWriters(t *testing.T) {
	forEach(t, func(t *testing.T, svc *registry.Services, st *store.Store) {
		ctx := context.Background()
		const writers, each = 8, 6
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					_, err := svc.Review.Submit(ctx, owner, registry.Submission{
						ServerJSON: serverJSON(fmt.Sprintf("io.github.acme/c%d", w), fmt.Sprintf("1.0.%d", i)), Tools: []byte(tools)})
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		rep, err := svc.Audit.VerifyAuditChain(ctx)
		if err != nil || !rep.OK || rep.Events != writers*each {
			t.Fatalf("chain after concurrent writes: %+v %v", rep, err)
		}
		n, err := st.Client.Version.Query().Count(ctx)
		if err != nil || n != writers*each {
			t.Fatalf("versions = %d, %v", n, err)
		}
	})
}
