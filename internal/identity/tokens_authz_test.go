package identity_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpreg/mcpreg/internal/domain"
	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/store"
)

// TestTokenOperationsCheckTheCaller: issuing, listing and revoking tokens
// check the caller inside the service, not only in the transport: a
// reviewer, an owner, a host or no caller at all is refused each of them,
// and nothing is issued or revoked.
func TestTokenOperationsCheckTheCaller(t *testing.T) {
	forEach(t, func(t *testing.T, svc *identity.Service, _ *store.Store) {
		ctx := context.Background()
		tok, err := svc.CreateToken(ctx, admin, identity.NewToken{Principal: "edge", Role: domain.RoleHost})
		if err != nil {
			t.Fatal(err)
		}
		callers := map[string]*domain.Caller{
			"reviewer": {Principal: "alice", Role: domain.RoleReviewer},
			"owner":    {Principal: "acme-ci", Role: domain.RoleOwner, Namespaces: []string{"*"}},
			"host":     {Principal: "edge", Role: domain.RoleHost},
			"nobody":   nil,
		}
		for name, c := range callers {
			if _, err := svc.CreateToken(ctx, c, identity.NewToken{Principal: "mallory", Role: domain.RoleAdmin}); !errors.Is(err, domain.ErrPermissionDenied) {
				t.Errorf("%s creates a token: %v", name, err)
			}
			if _, err := svc.ListTokens(ctx, c, ""); !errors.Is(err, domain.ErrPermissionDenied) {
				t.Errorf("%s lists tokens: %v", name, err)
			}
			if _, err := svc.RevokeToken(ctx, c, tok.Token.GetId(), "spite"); !errors.Is(err, domain.ErrPermissionDenied) {
				t.Errorf("%s revokes a token: %v", name, err)
			}
		}
		ts, err := svc.ListTokens(ctx, admin, "")
		if err != nil || len(ts) != 1 || ts[0].GetRevokedAt() != nil {
			t.Fatalf("after the refused calls: %v %v", ts, err)
		}
		if _, err := svc.Authenticate(ctx, tok.Secret); err != nil {
			t.Fatalf("the token stopped working: %v", err)
		}
	})
}
