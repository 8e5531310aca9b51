package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/signing"
)

func discoveryService(t *testing.T, st *store.Store, opts ...registry.Option) *registry.Services {
	t.Helper()
	key, err := signing.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.New(context.Background(), st,
		append(opts, registry.WithDiscoverySigner(&registry.DiscoverySigner{Keys: &signing.KeySet{Current: key}}))...)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// servers resolves everything (the sequence differs by design: an index
// is not rebuilt for changes that do not touch it) (a reviewer's view), all pages.
func servers(t *testing.T, svc *registry.Services) string {
	t.Helper()
	res, err := svc.Discovery.Resolve(context.Background(), reviewer, registry.ResolveQuery{PageSize: registry.MaxDiscoveryPageSize})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res.Document.Servers)
	return string(out)
}

// TestIncrementalDiscoveryIndex: after random lifecycle changes, the
// index a long-running service keeps up to date (reusing unchanged
// entries) answers exactly what a fresh service reading everything
// answers.
func TestIncrementalDiscoveryIndex(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		svc := discoveryService(t, st)
		bob := &registry.Caller{Principal: "bob", Role: registry.RoleReviewer}
		rng := rand.New(rand.NewPCG(1, 2))
		type ver struct{ name, version, state string }
		var vs []*ver
		for step := range 120 {
			switch op := rng.IntN(4); {
			case op == 0 || len(vs) == 0:
				v := &ver{fmt.Sprintf("io.github.acme/s%d", rng.IntN(6)), fmt.Sprintf("1.%d.0", step), "pending_review"}
				submit(t, svc, owner, v.name, v.version)
				vs = append(vs, v)
			default:
				v := vs[rng.IntN(len(vs))]
				a := map[string]registry.Action{"pending_review": registry.ActionApprove, "approved": registry.ActionQuarantine,
					"quarantined": registry.ActionRelease}[v.state]
				if a == "" {
					continue
				}
				by := []*registry.Caller{reviewer, bob}[rng.IntN(2)]
				if _, err := svc.Review.Transition(ctx, by, a, v.name, v.version, "step"); err != nil {
					t.Fatalf("step %d: %s %s@%s: %v", step, a, v.name, v.version, err)
				}
				v.state = map[registry.Action]string{registry.ActionApprove: "approved", registry.ActionQuarantine: "quarantined",
					registry.ActionRelease: "approved"}[a]
			}
			if step%10 == 9 {
				if got, want := servers(t, svc), servers(t, discoveryService(t, st)); got != want {
					t.Fatalf("step %d: incremental index\n%s\nfresh index\n%s", step, got, want)
				}
			}
		}
	})
}

// TestDiscoveryNeverAnswersStale: while other callers keep resolving (and
// so keep the index busy rebuilding), an answer asked for after a
// quarantine or release returned always reflects it.
func TestDiscoveryNeverAnswersStale(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		svc := discoveryService(t, st)
		bob := &registry.Caller{Principal: "bob", Role: registry.RoleReviewer}
		submit(t, svc, owner, "io.github.acme/weather", "1.0.0")
		if _, err := svc.Review.Transition(ctx, bob, registry.ActionApprove, "io.github.acme/weather", "1.0.0", "ok"); err != nil {
			t.Fatal(err)
		}
		count := func() int {
			res, err := svc.Discovery.Resolve(ctx, reviewer, registry.ResolveQuery{})
			if err != nil {
				if ctx.Err() == nil {
					t.Error(err)
				}
				return -1
			}
			return len(res.Document.Servers)
		}
		for range 4 {
			go func() {
				for ctx.Err() == nil {
					count()
				}
			}()
		}
		for i := range 20 {
			a, want := registry.ActionQuarantine, 0
			if i%2 == 1 {
				a, want = registry.ActionRelease, 1
			}
			if _, err := svc.Review.Transition(ctx, reviewer, a, "io.github.acme/weather", "1.0.0", "flip"); err != nil {
				t.Fatal(err)
			}
			if got := count(); got != want {
				t.Fatalf("step %d: after %s the answer has %d servers, want %d", i, a, got, want)
			}
		}
	})
}
