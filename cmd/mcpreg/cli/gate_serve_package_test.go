package cli_test

import (
	"context"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/fetch/fetchtest"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// probeServer is an MCP server over stdio in plain node: echo answers its
// text; probe tries to connect to the host:port it is given and says
// whether it could.
const probeServer = `#!/usr/bin/env node
const rl = require('readline').createInterface({input: process.stdin});
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const tools = [
  {name: 'echo', description: 'Echo the text back', inputSchema: {type: 'object', properties: {text: {type: 'string'}}}},
  {name: 'probe', description: 'Check whether an address can be reached', inputSchema: {type: 'object', properties: {host: {type: 'string'}, port: {type: 'number'}}}},
];
const text = (id, t) => send({jsonrpc: '2.0', id, result: {content: [{type: 'text', text: t}]}});
rl.on('line', (line) => {
  let m; try { m = JSON.parse(line); } catch (e) { return; }
  if (m.id === undefined) return;
  if (m.method === 'initialize') {
    send({jsonrpc: '2.0', id: m.id, result: {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'probe', version: '1.0.0'}}});
  } else if (m.method === 'tools/list') {
    send({jsonrpc: '2.0', id: m.id, result: {tools}});
  } else if (m.method === 'tools/call' && m.params.name === 'echo') {
    text(m.id, 'echo: ' + m.params.arguments.text);
  } else if (m.method === 'tools/call' && m.params.name === 'probe') {
    const s = require('net').connect(m.params.arguments.port, m.params.arguments.host);
    s.setTimeout(3000);
    s.on('connect', () => { s.destroy(); text(m.id, 'connected'); });
    s.on('timeout', () => { s.destroy(); text(m.id, 'blocked: timeout'); });
    s.on('error', (e) => text(m.id, 'blocked: ' + e.code));
  } else {
    send({jsonrpc: '2.0', id: m.id, error: {code: -32601, message: 'method not found'}});
  }
});
`

// TestGateServeRunsPackagesConfined: a version with only an npm stdio
// package is served by mcpreg gate serve: the package is fetched, checked
// and run in the sandbox with no network (its contract's egress is
// denied); its tools are listed and callable, and it cannot reach the
// registry the gateway itself talks to.
func TestGateServeRunsPackagesConfined(t *testing.T) {
	testkit.RequireRoot(t, "the gateway confines stdio packages in the sandbox")
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			testkit.Unavailable(t, "%s is not installed", tool)
		}
	}
	pkg := &fetchtest.Package{Name: "probe-mcp", Version: "1.0.0", Manifest: map[string]any{"bin": "server.js"},
		Files: []fetchtest.File{{Name: "package/server.js", Body: probeServer, Mode: 0o755}}}
	npm := fetchtest.NewRegistry(t, pkg)
	in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) {
		c.ScanLaunchTemplates = []string{"npm=node {package_bin}"}
		c.ScanNPMRegistry = npm.URL
	})
	dir := servertest.ScanUserDir(t)
	sj := writeFile(t, dir, "server.json", []byte(`{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
 "name":"io.github.acme/probe","description":"Probe","version":"1.0.0",
 "packages":[{"registryType":"npm","identifier":"probe-mcp","version":"1.0.0","transport":{"type":"stdio"}}]}`))
	contract := writeFile(t, dir, "contract.yaml", []byte(`contractVersion: mcpreg.contract/v1
owner: probe-team
auth: {mode: none}
isolation: container
tools:
  - {name: echo, riskTier: read, approval: none, timeout: 10s, idempotency: idempotent}
  - {name: probe, riskTier: read, approval: none, timeout: 10s, idempotency: idempotent}
`))
	owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	reviewer := in.Token(t, "alice", registry.RoleReviewer)
	mustRun(t, in.URL, owner, "submit", "--server-json", sj, "--live", "--contract", contract)
	mustRun(t, in.URL, reviewer, "approve", "io.github.acme/probe", "1.0.0", "--reason", "reviewed")
	key := publishedKeyPEM(t, in.URL, dir)
	host := in.HostToken(t, "laptop")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gs := startGateServe(ctx, t, in.URL, dir, "--key", key, "--state", dir+"/state.json", "--receipts", dir+"/receipts.jsonl",
		"--npm-registry", npm.URL, "--npm-dir", dir+"/npm", "--npm-allow-hosts", "127.0.0.1/32")
	addr, stderr := gs.addr, gs.stderr

	client := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1.0.0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/servers/io.github.acme/probe/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{host}}}
	cctx, ccancel := context.WithTimeout(ctx, 90*time.Second)
	defer ccancel()
	session, err := client.Connect(cctx, tr, nil)
	if err != nil {
		t.Fatalf("connecting through gate serve: %v\n%s", err, stderr)
	}
	res, err := session.ListTools(cctx, nil)
	if err != nil || len(res.Tools) != 2 {
		t.Fatalf("listing: %v %+v\n%s", err, res, stderr)
	}
	call := func(name string, args map[string]any) string {
		t.Helper()
		r, err := session.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || r.IsError || len(r.Content) != 1 {
			t.Fatalf("calling %s: %v %+v\n%s", name, err, r, stderr)
		}
		return r.Content[0].(*mcp.TextContent).Text
	}
	if got := call("echo", map[string]any{"text": "hi"}); !strings.Contains(got, "echo: hi") {
		t.Errorf("echo answered %q", got)
	}
	// The registry listens on this machine's loopback; a confined server
	// with egress denied has a network of its own with nothing in it.
	regHost, regPort := hostPort(t, in.URL)
	if got := call("probe", map[string]any{"host": regHost, "port": regPort}); !strings.Contains(got, "blocked:") {
		t.Errorf("the confined server reached the registry at %s:%d: %q", regHost, regPort, got)
	}
	_ = session.Close()
	gs.stop(t, cancel)
}

// hostPort splits a base URL's host and port.
func hostPort(t *testing.T, base string) (string, int) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return u.Hostname(), port
}
