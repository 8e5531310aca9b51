package registry_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

const schemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

func serverJSON(name, version string) []byte {
	return fmt.Appendf(nil, `{"$schema":%q,"name":%q,"description":"Test server %s","version":%q,
 "remotes":[{"type":"streamable-http","url":"https://mcp.example.com/mcp"}]}`, schemaURL, name, name, version)
}

const tools = `{"tools":[{"name":"echo","description":"Echo text back.","inputSchema":{"type":"object"}}]}`

var (
	admin    = &registry.Caller{Principal: "root", Role: registry.RoleAdmin}
	reviewer = &registry.Caller{Principal: "alice", Role: registry.RoleReviewer}
	owner    = &registry.Caller{Principal: "acme-ci", Role: registry.RoleOwner, Namespaces: []string{"io.github.acme", "com.acme.*"}}
)

func newService(t *testing.T, st *store.Store) *registry.Services {
	t.Helper()
	svc, err := registry.New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func submit(t *testing.T, svc *registry.Services, c *registry.Caller, name, version string) *registry.VersionView {
	t.Helper()
	v, err := svc.Review.Submit(context.Background(), c, registry.Submission{ServerJSON: serverJSON(name, version), Tools: []byte(tools)})
	if err != nil {
		t.Fatalf("submit %s@%s: %v", name, version, err)
	}
	return v
}

func forEach(t *testing.T, fn func(t *testing.T, svc *registry.Services, st *store.Store)) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) { fn(t, newService(t, st), st) })
}
