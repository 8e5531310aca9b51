package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestDiscoveryDeltaMatchesFullBuild: the discovery index that follows
// each change from the audit events since the last one (approve,
// quarantine, release, revoke, deprecate, one version at a time) answers
// exactly as an index built from scratch over the same database does, on
// the official list with deleted versions, after every step; and the
// shadowing check it carries sees a newly approved server's tools.
func TestDiscoveryDeltaMatchesFullBuild(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		svc := newService(t, st)
		list := func(s *registry.Services) string {
			t.Helper()
			l, err := s.Discovery.OfficialServers(ctx, reviewer, registry.OfficialQuery{Limit: 100, IncludeDeleted: true})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(l)
			return string(b)
		}
		check := func(step string) {
			t.Helper()
			if got, want := list(svc), list(newService(t, st)); got != want {
				t.Fatalf("after %s the delta-built index differs from a full build:\n got %s\nwant %s", step, got, want)
			}
		}
		for i := range 4 {
			for _, v := range []string{"1.0.0", "1.1.0"} {
				submit(t, svc, owner, fmt.Sprintf("io.github.acme/s%d", i), v)
			}
		}
		list(svc) // the first index, built in full; later ones follow deltas
		steps := []struct {
			a         registry.Action
			name, ver string
		}{
			{registry.ActionApprove, "io.github.acme/s0", "1.0.0"}, {registry.ActionApprove, "io.github.acme/s0", "1.1.0"},
			{registry.ActionApprove, "io.github.acme/s1", "1.1.0"}, {registry.ActionQuarantine, "io.github.acme/s0", "1.1.0"},
			{registry.ActionApprove, "io.github.acme/s2", "1.0.0"}, {registry.ActionRevoke, "io.github.acme/s1", "1.1.0"},
			{registry.ActionRelease, "io.github.acme/s0", "1.1.0"}, {registry.ActionRevoke, "io.github.acme/s2", "1.0.0"},
		}
		for _, s := range steps {
			if _, err := svc.Review.Transition(ctx, reviewer, s.a, s.name, s.ver, "step"); err != nil {
				t.Fatalf("%s %s@%s: %v", s.a, s.name, s.ver, err)
			}
			check(fmt.Sprintf("%s %s@%s", s.a, s.name, s.ver))
		}
		if _, err := svc.Review.SetStatus(ctx, owner, "io.github.acme/s0", "", "deprecated", "use s3"); err != nil {
			t.Fatal(err)
		}
		check("deprecating a server")
		// The carried shadowing index sees the tools of a server approved
		// after it was built: a submission reusing its tool name is
		// flagged.
		if _, err := svc.Review.Transition(ctx, reviewer, registry.ActionApprove, "io.github.acme/s3", "1.0.0", "step"); err != nil {
			t.Fatal(err)
		}
		v := submit(t, svc, owner, "io.github.acme/copy", "1.0.0")
		shadowed := false
		for _, f := range v.GetFindings() {
			shadowed = shadowed || (f.GetKind() == diffreview.KindNameCollision && strings.Contains(f.GetMessage(), "io.github.acme/s3"))
		}
		if !shadowed {
			t.Errorf("a tool named like an approved server's is not flagged: %v", v.GetFindings())
		}
	})
}
