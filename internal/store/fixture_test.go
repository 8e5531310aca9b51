package store_test

import (
	"context"
	"testing"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/principal"
)

// fixture is a principal, a server and one version of it.
type fixture struct {
	principal *ent.Principal
	server    *ent.Server
	version   *ent.Version
}

func newFixture(ctx context.Context, t *testing.T, c *ent.Client) fixture {
	t.Helper()
	p, err := c.Principal.Create().SetName("alice").SetRole(principal.RoleOwner).
		SetNamespaces([]string{"io.github.acme"}).Save(ctx)
	if err != nil {
		t.Fatalf("create principal: %v", err)
	}
	srv, err := c.Server.Create().SetName("io.github.acme/weather").SetNamespace("io.github.acme").
		SetOwner("acme").Save(ctx)
	if err != nil {
		t.Fatalf("create server: %v", err)
	}
	v, err := c.Version.Create().SetServer(srv).SetVersion("1.0.0").
		SetServerJSON([]byte(`{"name":"io.github.acme/weather"}`)).SetSubmittedBy("alice").Save(ctx)
	if err != nil {
		t.Fatalf("create version: %v", err)
	}
	return fixture{principal: p, server: srv, version: v}
}
