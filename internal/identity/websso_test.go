package identity_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/domain"
	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestSignInExternal: a principal vouched for elsewhere gets the session
// SignIn gives, whether it has a password or only tokens; unknown names
// and roles other than reviewer and admin are refused.
func TestSignInExternal(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		svc := newService(t, st)
		for name, role := range map[string]domain.Role{"rev@example.com": domain.RoleReviewer,
			"own@example.com": domain.RoleOwner, "host@example.com": domain.RoleHost} {
			if _, err := svc.CreateToken(ctx, admin, identity.NewToken{Principal: name, Role: role, Namespaces: nsFor(role)}); err != nil {
				t.Fatalf("token for %s: %v", name, err)
			}
		}
		ws, err := svc.SignInExternal(ctx, "rev@example.com", "oidc https://idp.example.com", "10.0.0.1")
		if err != nil || len(ws.Token) < 40 || len(ws.CSRF) < 40 || ws.Caller.Role != domain.RoleReviewer {
			t.Fatalf("sign in: %+v %v", ws, err)
		}
		got, err := svc.Session(ctx, ws.Token)
		if err != nil || got.Caller.Principal != "rev@example.com" || got.CSRF != ws.CSRF || !got.ExpiresAt.Equal(ws.ExpiresAt) {
			t.Fatalf("session: %+v %v", got, err)
		}
		for _, name := range []string{"nobody@example.com", "own@example.com", "host@example.com", ""} {
			if ws, err := svc.SignInExternal(ctx, name, "oidc", "10.0.0.1"); !errors.Is(err, domain.ErrPermissionDenied) {
				t.Errorf("%q: %+v %v, want permission denied", name, ws, err)
			}
		}
		_, err = svc.SignInExternal(ctx, "nobody@example.com", "oidc", "10.0.0.1")
		if want := "no web user nobody@example.com: an admin creates it with mcpregd user add"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("unknown principal: %v, want %q", err, want)
		}
	})
}

func nsFor(r domain.Role) []string {
	if r == domain.RoleOwner || r == domain.RoleHost {
		return []string{"io.github.acme"}
	}
	return nil
}
