package registry_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
)

func TestLifecycle(t *testing.T) {
	type step struct {
		action registry.Action
		by     *registry.Caller
		want   string // resulting state, or the error sentinel's text
		err    error
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"approve then quarantine, release, revoke", []step{
			{registry.ActionApprove, reviewer, "approved", nil},
			{registry.ActionQuarantine, reviewer, "quarantined", nil},
			{registry.ActionRelease, admin, "approved", nil},
			{registry.ActionRevoke, reviewer, "revoked", nil},
			{registry.ActionRelease, reviewer, "", registry.ErrFailedPrecondition},
		}},
		{"reject is final", []step{
			{registry.ActionReject, reviewer, "rejected", nil},
			{registry.ActionApprove, reviewer, "", registry.ErrFailedPrecondition},
			{registry.ActionQuarantine, reviewer, "", registry.ErrFailedPrecondition},
		}},
		{"pending cannot be quarantined, released or revoked", []step{
			{registry.ActionQuarantine, reviewer, "", registry.ErrFailedPrecondition},
			{registry.ActionRelease, reviewer, "", registry.ErrFailedPrecondition},
			{registry.ActionRevoke, reviewer, "", registry.ErrFailedPrecondition},
			{registry.ActionApprove, reviewer, "approved", nil},
			{registry.ActionApprove, admin, "", registry.ErrFailedPrecondition},
		}},
		{"quarantined can be revoked", []step{
			{registry.ActionApprove, admin, "approved", nil},
			{registry.ActionQuarantine, admin, "quarantined", nil},
			{registry.ActionRevoke, admin, "revoked", nil},
		}},
		{"owners and hosts decide nothing", []step{
			{registry.ActionApprove, owner, "", registry.ErrPermissionDenied},
			{registry.ActionReject, &registry.Caller{Principal: "h", Role: registry.RoleHost}, "", registry.ErrPermissionDenied},
		}},
	}
	forEach(t, func(t *testing.T, svc *registry.Services, _ *store.Store) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ver := "1.0." + string(rune('0'+i))
				submit(t, svc, owner, "io.github.acme/life", ver)
				for _, s := range c.steps {
					v, err := svc.Review.Transition(context.Background(), s.by, s.action, "io.github.acme/life", ver, "because")
					if s.err != nil {
						if !errors.Is(err, s.err) {
							t.Fatalf("%s by %s: err %v, want %v", s.action, s.by.Principal, err, s.err)
						}
						continue
					}
					if err != nil || v.State != s.want {
						t.Fatalf("%s by %s: %v, state %v, want %s", s.action, s.by.Principal, err, v.GetState(), s.want)
					}
				}
			})
		}
	})
}

func TestStateErrorNamesCurrentState(t *testing.T) {
	forEach(t, func(t *testing.T, svc *registry.Services, _ *store.Store) {
		submit(t, svc, owner, "io.github.acme/x", "1.0.0")
		_, err := svc.Review.Transition(context.Background(), reviewer, registry.ActionRevoke, "io.github.acme/x", "1.0.0", "r")
		var se *registry.StateError
		if !errors.As(err, &se) || se.Current != "pending_review" || !strings.Contains(err.Error(), "pending_review") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestFourEyes(t *testing.T) {
	forEach(t, func(t *testing.T, svc *registry.Services, _ *store.Store) {
		ctx := context.Background()
		// The same principal through another token is still the same principal.
		rootOther := &registry.Caller{Principal: "root", Role: registry.RoleAdmin, TokenID: "tok_other"}
		submit(t, svc, admin, "io.github.acme/self", "1.0.0")
		if _, err := svc.Review.Transition(ctx, rootOther, registry.ActionApprove, "io.github.acme/self", "1.0.0", "ok"); !errors.Is(err, registry.ErrPermissionDenied) {
			t.Fatalf("self approval: %v", err)
		}
		// Rejecting one's own submission is allowed: it only ever narrows.
		if _, err := svc.Review.Transition(ctx, admin, registry.ActionReject, "io.github.acme/self", "1.0.0", "withdrawn"); err != nil {
			t.Fatalf("self reject: %v", err)
		}
	})
}
