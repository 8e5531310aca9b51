package identity_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/domain"
	"github.com/mcpreg/mcpreg/internal/ent/signinthrottle"
	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// testClock is a clock two replicas share; tests move it.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *testClock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

// throttlePair is two replicas on one fresh database of dialect, on one
// clock, with reviewer rita's password set.
func throttlePair(t *testing.T, dialect string) (replicaPair, *testClock) {
	t.Helper()
	ctx := context.Background()
	clock := &testClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	dsn := storetest.DSN(t, dialect)
	sa, sb := storetest.OpenReplica(t, dsn), storetest.OpenReplica(t, dsn)
	var svcs [2]*identity.Service
	for i, st := range []*store.Store{sa, sb} {
		svc := newService(t, st, identity.WithClock(clock.Now))
		svcs[i] = svc
	}
	if err := svcs[0].SetPassword(ctx, admin, "rita", domain.RoleReviewer, goodPassword); err != nil {
		t.Fatal(err)
	}
	return replicaPair{a: svcs[0], b: svcs[1], st: sa}, clock
}

// TestSignInThrottleSharedByReplicas: failed sign-ins through two replicas
// spend one budget per name and one per address; once it is spent, both
// replicas refuse even the right password, and each failureInterval gives
// one attempt back on both.
func TestSignInThrottleSharedByReplicas(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		p, clock := throttlePair(t, dialect)
		signIn := func(i int, password, remote string) error {
			_, err := p.replica(i).SignIn(ctx, "rita", password, remote)
			return err
		}
		for i := range identity.FailureBurst {
			if err := signIn(i%2, "guess", fmt.Sprintf("10.1.0.%d", i)); !errors.Is(err, domain.ErrUnauthenticated) {
				t.Fatalf("failure %d through replica %d: %v", i+1, i%2, err)
			}
		}
		for i := range 2 {
			if err := signIn(i, goodPassword, "10.9.9.9"); !errors.Is(err, domain.ErrThrottled) {
				t.Fatalf("replica %d let the right password through a spent name: %v", i, err)
			}
		}
		clock.Add(identity.FailureInterval - time.Microsecond)
		if err := signIn(1, goodPassword, "10.9.9.9"); !errors.Is(err, domain.ErrThrottled) {
			t.Fatalf("an attempt came back before failureInterval: %v", err)
		}
		clock.Add(time.Microsecond)
		if err := signIn(0, "guess", "10.9.9.9"); !errors.Is(err, domain.ErrUnauthenticated) {
			t.Fatalf("no attempt back after failureInterval: %v", err)
		}
		if err := signIn(1, goodPassword, "10.9.9.9"); !errors.Is(err, domain.ErrThrottled) {
			t.Fatalf("more than one attempt back after failureInterval: %v", err)
		}
		clock.Add(identity.FailureInterval)
		if err := signIn(1, goodPassword, "10.9.9.9"); err != nil {
			t.Fatalf("the right password after the budget came back: %v", err)
		}

		// Per address: different names from one address, across replicas.
		for i := range identity.FailureBurst {
			_, err := p.replica(i%2).SignIn(ctx, fmt.Sprintf("nobody-%d", i), "guess", "192.0.2.7")
			if !errors.Is(err, domain.ErrUnauthenticated) {
				t.Fatalf("address failure %d: %v", i+1, err)
			}
		}
		for i := range 2 {
			if _, err := p.replica(i).SignIn(ctx, "rita", goodPassword, "192.0.2.7"); !errors.Is(err, domain.ErrThrottled) {
				t.Fatalf("replica %d let a spent address through: %v", i, err)
			}
		}
	})
}

// TestSignInThrottleConcurrentFailures: failureBurst+5 wrong passwords for
// one name, fired at once through two replicas, lose no update: the name's
// tat is one failureInterval past now per failure that reached the
// password check, as serial failures would leave it. The attempt is taken
// before the password is hashed, so exactly failureBurst of them are
// hashed, not every one that arrived before the first failure was recorded.
func TestSignInThrottleConcurrentFailures(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		p, clock := throttlePair(t, dialect)
		start := clock.Now()
		n := identity.FailureBurst + 5
		errs := make([]error, n)
		testkit.Race(n, func(i int) {
			_, errs[i] = p.replica(i%2).SignIn(ctx, "rita", "guess", fmt.Sprintf("10.2.0.%d", i))
		})
		failed := 0
		for i, err := range errs {
			switch {
			case errors.Is(err, domain.ErrUnauthenticated):
				failed++
			case !errors.Is(err, domain.ErrThrottled):
				t.Fatalf("attempt %d: %v", i, err)
			}
		}
		if failed != identity.FailureBurst {
			t.Fatalf("%d of %d attempts reached the password check, want exactly %d (the burst)", failed, n, identity.FailureBurst)
		}
		t.Logf("%d of %d concurrent attempts reached the password check", failed, n)
		row, err := p.st.Client.SigninThrottle.Query().Where(signinthrottle.Key("name:rita")).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := start.Add(time.Duration(failed) * identity.FailureInterval); !row.Tat.Equal(want) {
			t.Fatalf("tat %s after %d failures, want %s (lost updates)", row.Tat, failed, want)
		}
		addrs, err := p.st.Client.SigninThrottle.Query().Where(signinthrottle.KeyHasPrefix("addr:")).Count(ctx)
		if err != nil || addrs != failed {
			t.Fatalf("%d address rows (%v), want %d", addrs, err, failed)
		}
		if _, err := p.b.SignIn(ctx, "rita", goodPassword, "10.9.9.9"); !errors.Is(err, domain.ErrThrottled) {
			t.Fatalf("the right password after the burst: %v", err)
		}
	})
}
