package registry_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestSetStatus: owners in their namespaces, reviewers and admins
// deprecate and undeprecate a version or a whole server, with a message;
// each change is audited once; hosts, other owners and bad input are
// refused without changing anything.
func TestSetStatus(t *testing.T) {
	st := storetest.Open(t, store.DialectSQLite)
	svc := newService(t, st)
	ctx := context.Background()
	submit(t, svc, owner, "io.github.acme/weather", "1.0.0")
	submit(t, svc, owner, "io.github.acme/weather", "1.1.0")
	other := &registry.Caller{Principal: "other-ci", Role: registry.RoleOwner, Namespaces: []string{"io.github.other"}}
	host := &registry.Caller{Principal: "laptop", Role: registry.RoleHost}
	for _, c := range []struct {
		who                   *registry.Caller
		ver, status, msg, why string
		want                  error
	}{
		{other, "1.0.0", "deprecated", "x", "another owner", registry.ErrNotFound},
		{host, "1.0.0", "deprecated", "x", "a host", registry.ErrNotFound},
		{owner, "1.0.0", "deleted", "", "deleted is revoking", registry.ErrInvalid},
		{owner, "1.0.0", "active", "why", "a message on undeprecation", registry.ErrInvalid},
		{owner, "1.0.0", "deprecated", strings.Repeat("x", 1001), "a long message", registry.ErrInvalid},
		{owner, "9.9.9", "deprecated", "x", "an unknown version", registry.ErrNotFound},
	} {
		if _, err := svc.Review.SetStatus(ctx, c.who, "io.github.acme/weather", c.ver, c.status, c.msg); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.why, err, c.want)
		}
	}
	vs, err := svc.Review.SetStatus(ctx, owner, "io.github.acme/weather", "1.0.0", "deprecated", "use 1.1.0")
	if err != nil || len(vs) != 1 || vs[0].GetStatus() != "deprecated" || vs[0].GetStatusMessage() != "use 1.1.0" || vs[0].GetStatusChangedAt() == nil {
		t.Fatalf("deprecate one version: %v %v", vs, err)
	}
	if vs, err = svc.Review.SetStatus(ctx, reviewer, "io.github.acme/weather", "", "deprecated", "use io.github.acme/forecast"); err != nil || len(vs) != 2 {
		t.Fatalf("deprecate the server: %v %v", vs, err)
	}
	if _, err := svc.Review.SetStatus(ctx, reviewer, "io.github.acme/weather", "", "deprecated", "use io.github.acme/forecast"); err != nil {
		t.Fatal(err)
	}
	if vs, err = svc.Review.SetStatus(ctx, owner, "io.github.acme/weather", "1.1.0", "active", ""); err != nil || vs[0].GetStatus() != "active" {
		t.Fatalf("undeprecate: %v %v", vs, err)
	}
	events, err := st.Client.AuditEvent.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		if strings.HasPrefix(e.Action, "version.") && strings.Contains(e.Action, "deprecate") {
			got = append(got, e.Action+" "+e.Subject+" "+e.Reason)
		}
	}
	want := []string{"version.deprecate io.github.acme/weather@1.0.0 use 1.1.0",
		"version.deprecate io.github.acme/weather@1.0.0 use io.github.acme/forecast",
		"version.deprecate io.github.acme/weather@1.1.0 use io.github.acme/forecast",
		"version.undeprecate io.github.acme/weather@1.1.0 "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audited:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCaseVariantOfServerStoredBeforeFolding: servers stored before
// name_folded existed (the migration leaves it empty) are folded when the
// services start, so a case variant of their names is still refused.
func TestCaseVariantOfServerStoredBeforeFolding(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		submit(t, newService(t, st), owner, "io.github.acme/weather", "1.0.0")
		if _, err := st.Client.ExecContext(ctx, "UPDATE servers SET name_folded = ''"); err != nil {
			t.Fatal(err)
		}
		svc := newService(t, st)
		_, err := svc.Review.Submit(ctx, owner, registry.Submission{ServerJSON: serverJSON("io.github.acme/Weather", "1.0.0"), Tools: []byte(tools)})
		if !errors.Is(err, registry.ErrAlreadyExists) || !strings.Contains(err.Error(), "only in case") {
			t.Fatalf("case variant after folding: %v", err)
		}
	})
}
