package identity_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/domain"
	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

const goodPassword = "correct horse battery staple"

// TestWebSessions: sign-in opens a session the cookie token resolves;
// sign-out and expiry end it; a new password ends every session; failures
// say only "wrong name or password" and are throttled per name and per
// address; owners and hosts do not sign in.
func TestWebSessions(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		var mu sync.Mutex
		now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		svc := newService(t, st, identity.WithClock(clock))
		if err := svc.SetPassword(ctx, admin, "rita", domain.RoleReviewer, goodPassword); err != nil {
			t.Fatal(err)
		}
		ws, err := svc.SignIn(ctx, "rita", goodPassword, "10.0.0.1")
		if err != nil || len(ws.Token) < 40 || len(ws.CSRF) < 40 || ws.Token == ws.CSRF {
			t.Fatalf("sign in: %+v %v", ws, err)
		}
		got, err := svc.Session(ctx, ws.Token)
		if err != nil || got.Caller.Principal != "rita" || got.CSRF != ws.CSRF {
			t.Fatalf("session: %+v %v", got, err)
		}
		if err := svc.SignOut(ctx, ws.Token); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Session(ctx, ws.Token); !errors.Is(err, domain.ErrUnauthenticated) {
			t.Fatalf("after sign-out: %v", err)
		}

		ws, _ = svc.SignIn(ctx, "rita", goodPassword, "10.0.0.1")
		mu.Lock()
		now = now.Add(identity.SessionTTL)
		mu.Unlock()
		if _, err := svc.Session(ctx, ws.Token); !errors.Is(err, domain.ErrUnauthenticated) {
			t.Fatalf("after expiry: %v", err)
		}
		ws, _ = svc.SignIn(ctx, "rita", goodPassword, "10.0.0.1")
		if err := svc.SetPassword(ctx, admin, "rita", domain.RoleReviewer, goodPassword+"!"); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Session(ctx, ws.Token); !errors.Is(err, domain.ErrUnauthenticated) {
			t.Fatalf("a new password left a session open: %v", err)
		}

		// Unknown name and wrong password look the same.
		_, e1 := svc.SignIn(ctx, "nobody", goodPassword, "10.0.0.2")
		_, e2 := svc.SignIn(ctx, "rita", "not the password", "10.0.0.3")
		if !errors.Is(e1, domain.ErrUnauthenticated) || e1.Error() != e2.Error() {
			t.Fatalf("failures differ: %v / %v", e1, e2)
		}
		// Throttled per name, from any address.
		var last error
		for i := range 8 {
			_, last = svc.SignIn(ctx, "rita", "guess", "10.1.0."+string(rune('0'+i)))
		}
		if !errors.Is(last, domain.ErrThrottled) {
			t.Fatalf("no throttling after 8 failures: %v", last)
		}
		if _, err := svc.SignIn(ctx, "rita", goodPassword+"!", "10.9.9.9"); !errors.Is(err, domain.ErrThrottled) {
			t.Fatalf("the right password got through a throttled name: %v", err)
		}

		if _, err := svc.CreateToken(ctx, admin, identity.NewToken{Principal: "acme-ci", Role: domain.RoleOwner, Namespaces: []string{"io.github.acme"}}); err != nil {
			t.Fatal(err)
		}
		if err := svc.SetPassword(ctx, admin, "acme-ci", domain.RoleReviewer, goodPassword); !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("password for an owner as a reviewer: %v", err)
		}
	})
}

// TestFailedSignInLogsNoTypedName: people type passwords into the name
// field; a failed sign-in logs the principal when the name is one, else
// only a short hash of what was typed.
func TestFailedSignInLogsNoTypedName(t *testing.T) {
	forEach(t, func(t *testing.T, _ *identity.Service, st *store.Store) {
		ctx := context.Background()
		var logs bytes.Buffer
		svc := newService(t, st, identity.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
		admin := &domain.Caller{Principal: "root", Role: domain.RoleAdmin}
		if err := svc.SetPassword(ctx, admin, "rita", domain.RoleReviewer, goodPassword); err != nil {
			t.Fatal(err)
		}
		typed := "correct-horse-battery-staple-9"
		if _, err := svc.SignIn(ctx, typed, typed, "10.0.0.1"); !errors.Is(err, domain.ErrUnauthenticated) {
			t.Fatalf("sign-in with a password as the name: %v", err)
		}
		if _, err := svc.SignIn(ctx, "rita", "wrong password here", "10.0.0.2"); !errors.Is(err, domain.ErrUnauthenticated) {
			t.Fatalf("wrong password: %v", err)
		}
		out := logs.String()
		if strings.Contains(out, typed) || strings.Contains(out, "wrong password here") {
			t.Fatalf("the log holds what was typed:\n%s", out)
		}
		if !strings.Contains(out, `"name_sha256":"`) || !strings.Contains(out, `"principal":"rita"`) {
			t.Fatalf("failed sign-ins are not traceable in the log:\n%s", out)
		}
	})
}
