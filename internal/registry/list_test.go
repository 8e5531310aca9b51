package registry_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
)

func TestListPaginationAndFilters(t *testing.T) {
	forEach(t, func(t *testing.T, svc *registry.Services, _ *store.Store) {
		ctx := context.Background()
		for i := range 7 {
			submit(t, svc, owner, fmt.Sprintf("io.github.acme/s%02d", i), "1.0.0")
		}
		submit(t, svc, owner, "io.github.acme/s00", "1.2.0")
		submit(t, svc, owner, "io.github.acme/s00", "1.10.0")
		for _, v := range []string{"1.2.0", "1.10.0"} {
			if _, err := svc.Review.Transition(ctx, reviewer, registry.ActionApprove, "io.github.acme/s00", v, "ok"); err != nil {
				t.Fatal(err)
			}
		}
		var names []string
		tok := ""
		for {
			page, next, err := svc.Review.ListServers(ctx, reviewer, registry.ServerFilter{}, registry.Page{Size: 3, Token: tok})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range page {
				names = append(names, s.GetName())
			}
			if next == "" {
				break
			}
			tok = next
		}
		if len(names) != 7 || names[0] != "io.github.acme/s00" || names[6] != "io.github.acme/s06" {
			t.Fatalf("paged names: %v", names)
		}
		s00, err := svc.Review.GetServer(ctx, reviewer, "io.github.acme/s00")
		if err != nil || s00.GetLatestApprovedVersion() != "1.10.0" || s00.GetVersionCount() != 3 {
			t.Fatalf("s00: %v %v", s00, err)
		}
		approved, _, _ := svc.Review.ListServers(ctx, reviewer, registry.ServerFilter{State: "approved"}, registry.Page{})
		if len(approved) != 1 {
			t.Fatalf("approved filter: %d", len(approved))
		}
		q, _, _ := svc.Review.ListServers(ctx, reviewer, registry.ServerFilter{Query: "S03"}, registry.Page{})
		if len(q) != 1 || q[0].GetName() != "io.github.acme/s03" {
			t.Fatalf("query filter: %v", q)
		}
		vs, next, err := svc.Review.ListVersions(ctx, reviewer, "io.github.acme/s00", registry.ServerFilter{}, registry.Page{Size: 2})
		if err != nil || len(vs) != 2 || next == "" || vs[0].GetVersion() != "1.10.0" {
			t.Fatalf("versions page: %v %q %v", vs, next, err)
		}
		rest, next, _ := svc.Review.ListVersions(ctx, reviewer, "io.github.acme/s00", registry.ServerFilter{}, registry.Page{Size: 2, Token: next})
		if len(rest) != 1 || next != "" || rest[0].GetVersion() != "1.0.0" {
			t.Fatalf("versions page 2: %v %q", rest, next)
		}
		if _, _, err := svc.Review.ListVersions(ctx, reviewer, "", registry.ServerFilter{}, registry.Page{Token: tok}); err == nil {
			t.Fatal("a servers page token was accepted by the versions list")
		}
	})
}
