package registry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestReplicaCachesFollowChanges: two services on one database stand for
// two replicas. A quarantine and a token revocation made through one are
// reflected by the other's discovery answers and token checks promptly
// (the test waits at most 3 s; the figure is logged).
func TestReplicaCachesFollowChanges(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// Each replica's identity service hears of the other's revocations
		// through its registry's change feed, as wiring.NewServices wires it.
		var idB *identity.Service
		a := discoveryService(t, st)
		b := discoveryService(t, st, registry.WithChangeListener(func(action string) { idB.Changed(action) }))
		idA := identity.New(st, a.Audit.AuditWriter())
		idB = identity.New(st, b.Audit.AuditWriter())
		bob := &registry.Caller{Principal: "bob", Role: registry.RoleReviewer}
		submit(t, a, owner, "io.github.acme/weather", "1.0.0")
		if _, err := a.Review.Transition(ctx, bob, registry.ActionApprove, "io.github.acme/weather", "1.0.0", "ok"); err != nil {
			t.Fatal(err)
		}
		visible := func(svc *registry.Services) bool {
			res, err := svc.Discovery.Resolve(ctx, reviewer, registry.ResolveQuery{})
			if err != nil {
				t.Fatal(err)
			}
			return len(res.Document.Servers) == 1
		}
		waitFor := func(what string, cond func() bool) {
			t.Helper()
			start := time.Now()
			for !cond() {
				if time.Since(start) > 3*time.Second {
					t.Fatalf("%s: not seen by the other replica within 3s", what)
				}
				time.Sleep(5 * time.Millisecond)
			}
			t.Logf("%s seen by the other replica after %s", what, time.Since(start).Round(time.Millisecond))
		}
		waitFor("approval", func() bool { return visible(b) })
		if _, err := a.Review.Transition(ctx, reviewer, registry.ActionQuarantine, "io.github.acme/weather", "1.0.0", "incident"); err != nil {
			t.Fatal(err)
		}
		// The watch starts late, after b built its index and a changed
		// it (as when a request beats the watch at start): it must still
		// see that change.
		go func() { _ = b.Audit.WatchChanges(ctx, 50*time.Millisecond) }()
		waitFor("quarantine", func() bool { return !visible(b) })

		tok, err := idA.CreateToken(ctx, admin, identity.NewToken{Principal: "edge", Role: registry.RoleHost})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := idB.Authenticate(ctx, tok.Secret); err != nil {
			t.Fatal(err)
		}
		if _, err := idA.RevokeToken(ctx, admin, tok.Token.GetId(), "leaked"); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		waitFor("token revocation", func() bool {
			_, err := idB.Authenticate(ctx, tok.Secret)
			return errors.Is(err, registry.ErrUnauthenticated)
		})
		if time.Since(start) >= identity.AuthCacheTTL {
			t.Fatalf("revocation took the whole cache TTL: the change feed did not clear it")
		}
	})
}
