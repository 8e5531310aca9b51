package identity_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/domain"
	"github.com/mcpreg/mcpreg/internal/ent/token"
	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestAuthCacheBounds: a token revoked through this service is refused at
// once; one revoked behind its back (another replica, a direct database
// change) is refused once AuthCacheTTL has passed; an expiring token is
// never trusted past its expiry.
func TestAuthCacheBounds(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		var mu sync.Mutex
		now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
		svc := newService(t, st, identity.WithClock(clock))
		issue := func(name string, ttl time.Duration) *identity.IssuedToken {
			tok, err := svc.CreateToken(ctx, admin, identity.NewToken{Principal: name, Role: domain.RoleHost, TTL: ttl})
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		authOK := func(secret string) bool {
			_, err := svc.Authenticate(ctx, secret)
			if err != nil && !errors.Is(err, domain.ErrUnauthenticated) {
				t.Fatal(err)
			}
			return err == nil
		}

		a := issue("host-a", 0)
		if !authOK(a.Secret) {
			t.Fatal("fresh token refused")
		}
		if _, err := svc.RevokeToken(ctx, admin, a.Token.GetId(), "leaked"); err != nil {
			t.Fatal(err)
		}
		if authOK(a.Secret) {
			t.Fatal("token revoked through the service still accepted")
		}

		b := issue("host-b", 0)
		if !authOK(b.Secret) {
			t.Fatal("fresh token refused")
		}
		if err := st.Client.Token.Update().Where(token.PublicID(b.Token.GetId())).SetRevokedAt(clock()).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		advance(identity.AuthCacheTTL)
		if authOK(b.Secret) {
			t.Fatalf("token revoked elsewhere still accepted after %s", identity.AuthCacheTTL)
		}

		c := issue("host-c", identity.AuthCacheTTL/3)
		if !authOK(c.Secret) {
			t.Fatal("fresh token refused")
		}
		advance(identity.AuthCacheTTL / 3)
		if authOK(c.Secret) {
			t.Fatal("expired token accepted from the cache")
		}
	})
}
