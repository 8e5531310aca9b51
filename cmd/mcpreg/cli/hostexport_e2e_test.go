package cli_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
)

func exportServerJSON(name, version, pkg, remote string) []byte {
	doc := map[string]any{"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
		"name": name, "description": "Fixture", "version": version}
	if pkg != "" {
		doc["packages"] = []any{map[string]any{"registryType": "npm", "identifier": pkg, "version": version, "transport": map[string]any{"type": "stdio"}}}
	}
	if remote != "" {
		doc["remotes"] = []any{map[string]any{"type": "streamable-http", "url": remote}}
	}
	b, _ := json.Marshal(doc)
	return b
}

// TestCLIHostExport: mcpreg host export writes, from the verified
// discovery document and the official API's deleted versions, what a host
// token may use: managed-settings allows every approved server, its
// pinned package commands and remote URLs, and denies the quarantined and
// revoked versions (and a server with no approved version left) without
// ever denying what an approved version uses; mcp-servers wraps each
// server in mcpreg gate under a key derived from its name, suffixed on
// collision, and never writes the token.
func TestCLIHostExport(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	host := in.HostToken(t, "laptop")
	ctx := context.Background()
	root := &registry.Caller{Principal: "root", Role: registry.RoleAdmin}
	alice := &registry.Caller{Principal: "alice", Role: registry.RoleReviewer}
	const tools = `{"tools":[{"name":"echo","description":"Echo text back.","inputSchema":{"type":"object"}}]}`
	for _, s := range []struct{ name, version, pkg, remote, then string }{
		{"io.github.acme/weather", "1.1.0", "@acme/weather-mcp", "", "revoke"},
		{"io.github.acme/weather", "1.2.0", "@acme/weather-mcp", "", ""},
		{"io.github.acme/remote", "1.0.0", "", "https://remote.example/mcp", ""},
		{"io.github.acme/gone", "1.0.0", "@acme/gone-mcp", "", "quarantine"},
		{"io.github.acme/a-b", "1.0.0", "@acme/ab-mcp", "", ""},
		{"io.github.acme-a/b", "1.0.0", "@acme-a/b-mcp", "", ""},
	} {
		if _, err := in.Service.Review.Submit(ctx, root, registry.Submission{ServerJSON: exportServerJSON(s.name, s.version, s.pkg, s.remote), Tools: []byte(tools)}); err != nil {
			t.Fatalf("submit %s: %v", s.name, err)
		}
		for _, a := range []registry.Action{registry.ActionApprove, registry.Action(s.then)} {
			if a == "" {
				continue
			}
			if _, err := in.Service.Review.Transition(ctx, alice, a, s.name, s.version, "test"); err != nil {
				t.Fatalf("%s %s: %v", a, s.name, err)
			}
		}
	}
	key := publishedKeyPEM(t, in.URL, t.TempDir())

	out, _, err := runSplit(t, in.URL, host, "host", "export", "--format", "managed-settings", "--key", key)
	if err != nil {
		t.Fatalf("managed-settings: %v\n%s", err, out)
	}
	var ms struct {
		Allowed []map[string]any `json:"allowedMcpServers"`
		Denied  []map[string]any `json:"deniedMcpServers"`
	}
	if err := json.Unmarshal([]byte(out), &ms); err != nil {
		t.Fatal(err)
	}
	has := func(list []map[string]any, want string) bool {
		return slices.ContainsFunc(list, func(m map[string]any) bool { b, _ := json.Marshal(m); return string(b) == want })
	}
	for _, want := range []string{`{"serverName":"io.github.acme/weather"}`, `{"serverCommand":["npx","-y","@acme/weather-mcp@1.2.0"]}`,
		`{"serverName":"io.github.acme/remote"}`, `{"serverUrl":"https://remote.example/mcp"}`} {
		if !has(ms.Allowed, want) {
			t.Errorf("allowed lacks %s: %v", want, ms.Allowed)
		}
	}
	for _, want := range []string{`{"serverCommand":["npx","-y","@acme/weather-mcp@1.1.0"]}`, `{"serverName":"io.github.acme/gone"}`,
		`{"serverCommand":["npx","-y","@acme/gone-mcp@1.0.0"]}`} {
		if !has(ms.Denied, want) {
			t.Errorf("denied lacks %s: %v", want, ms.Denied)
		}
	}
	for _, never := range []string{`{"serverName":"io.github.acme/weather"}`, `{"serverCommand":["npx","-y","@acme/weather-mcp@1.2.0"]}`} {
		if has(ms.Denied, never) {
			t.Errorf("denied %s, which an approved version uses", never)
		}
	}
	if has(ms.Allowed, `{"serverName":"io.github.acme/gone"}`) {
		t.Error("a server with no approved version is allowed")
	}

	out, _, err = runSplit(t, in.URL, host, "host", "export", "--format", "mcp-servers", "--key", key)
	if err != nil {
		t.Fatalf("mcp-servers: %v\n%s", err, out)
	}
	if strings.Contains(out, host) {
		t.Fatal("the export wrote the host token")
	}
	var ms2 struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(out), &ms2); err != nil {
		t.Fatal(err)
	}
	w := ms2.MCPServers["io.github.acme-weather"]
	if w.Command != "mcpreg" || strings.Join(w.Args, " ") != "gate --name io.github.acme/weather --key "+key+" -- npx -y @acme/weather-mcp@1.2.0" ||
		w.Env["MCPREG_SERVER"] != in.URL {
		t.Errorf("weather entry: %+v", w)
	}
	if r := ms2.MCPServers["io.github.acme-remote"]; !slices.Contains(r.Args, "--url") || !slices.Contains(r.Args, "https://remote.example/mcp") {
		t.Errorf("remote entry: %+v", r)
	}
	a, b := ms2.MCPServers["io.github.acme-a-b"], ms2.MCPServers["io.github.acme-a-b-2"]
	if a.Args[2] == b.Args[2] || !strings.HasPrefix(a.Args[2], "io.github.acme") || !strings.HasPrefix(b.Args[2], "io.github.acme") {
		t.Errorf("colliding keys: %+v %+v", a, b)
	}
	if _, ok := ms2.MCPServers["io.github.acme-gone"]; ok {
		t.Error("the quarantined server is in mcpServers")
	}
	if _, _, err := runSplit(t, in.URL, host, "host", "export", "--format", "yaml", "--key", key); err == nil {
		t.Error("an unknown format was accepted")
	}
}
