package server_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/fetch/fetchtest"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// tinyServer is an MCP server over stdio in plain node, with no
// dependencies: it answers initialize and tools/list.
const tinyServer = `#!/usr/bin/env node
const rl = require('readline').createInterface({input: process.stdin});
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
rl.on('line', (line) => {
  let m; try { m = JSON.parse(line); } catch (e) { return; }
  if (m.id === undefined) return;
  if (m.method === 'initialize') {
    send({jsonrpc: '2.0', id: m.id, result: {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'tiny', version: '1.0.0'}}});
  } else if (m.method === 'tools/list') {
    send({jsonrpc: '2.0', id: m.id, result: {tools: [{name: 'echo', description: 'Echo the text back', inputSchema: {type: 'object', properties: {text: {type: 'string'}}}}]}});
  } else {
    send({jsonrpc: '2.0', id: m.id, error: {code: -32601, message: 'method not found'}});
  }
});
`

func requireNPMAndNode(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			testkit.Unavailable(t, "%s is not installed", tool)
		}
	}
}

// fetchedServerJSON is serverVersion of a server launched from version
// 1.0.0 of npm package pkg, with digest declared when not "".
func fetchedServerJSON(pkg, serverVersion, digest string) string {
	meta := ""
	if digest != "" {
		meta = fmt.Sprintf(`,"_meta":{"io.mcpreg/registry":{"packages":[{"identifier":%q,"digest":%q}]}}`, pkg, digest)
	}
	return fmt.Sprintf(`{"$schema":%q,"name":"io.github.acme/%s","description":"d","version":%q,
 "packages":[{"registryType":"npm","identifier":%q,"version":%q,"transport":{"type":"stdio"}}]%s}`,
		schemaURL, pkg, serverVersion, pkg, "1.0.0", meta)
}

// TestScannerFetchesEveryNPMPackage: an npm package is fetched from the
// configured registry and prepared before it is launched, with or without
// a declared digest (templates that download at launch are refused at
// start, see TestSandboxRefusesDownloadingTemplates); the scan records the
// digest it ran and what it was checked against. A package with a git
// dependency and its own .npmrc is refused, naming the dependency, as a
// high finding that blocks approval, and its script never runs.
func TestScannerFetchesEveryNPMPackage(t *testing.T) {
	requireNPMAndNode(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	tiny := &fetchtest.Package{Name: "tiny-mcp", Version: "1.0.0", Manifest: map[string]any{"bin": "server.js"},
		Files: []fetchtest.File{{Name: "package/server.js", Body: tinyServer, Mode: 0o755}}}
	evil := &fetchtest.Package{Name: "evil-mcp", Version: "1.0.0",
		Manifest: map[string]any{"bin": "server.js", "dependencies": map[string]any{"helper": "github:evil/helper"}},
		Files: []fetchtest.File{{Name: "package/server.js", Body: tinyServer, Mode: 0o755},
			{Name: "package/.npmrc", Body: "git=./evil.sh\n"},
			{Name: "package/evil.sh", Body: "#!/bin/sh\ntouch " + marker + "\n", Mode: 0o755}}}
	other, _ := attest.DigestOf([]byte("other bytes"), attest.SHA512)
	broken := &fetchtest.Package{Name: "broken-mcp", Version: "1.0.0", Manifest: map[string]any{"bin": "server.js"},
		Files:     []fetchtest.File{{Name: "package/server.js", Body: tinyServer, Mode: 0o755}},
		Integrity: fetchtest.Integrity(other)}
	reg := fetchtest.NewRegistry(t, tiny, evil, broken)
	tinyDigest, _ := attest.ParseDigest(tiny.Integrity)
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect, func(c *config.Config) {
			c.ScanLaunchTemplates = []string{"npm=node {package_bin}"}
			c.ScanNPMRegistry = reg.URL
		})
		owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
		reviewer := in.Token(t, "rita", registry.RoleReviewer)

		for _, c := range []struct{ version, digest, source string }{
			{"1.0.0", "", registry.DigestFromNPMRegistry},
			{"1.0.1", tiny.Integrity, registry.DigestFromMeta},
		} {
			r := call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": fetchedServerJSON("tiny-mcp", c.version, c.digest), "live": true})
			if r.Status != http.StatusOK {
				t.Fatalf("live submit of tiny-mcp %s: %d %s", c.version, r.Status, r.Body)
			}
			sr := ok(t, "scan", call(t, "POST", in.URL+"/v1/servers/io.github.acme/tiny-mcp/versions/"+c.version+"/scan", reviewer, map[string]any{})).json(t)
			sc := sr["scan"].(map[string]any)
			if sc["outcome"] != string(states.OutcomeMatch) || sc["artifactDigest"] != tinyDigest.String() || sc["digestSource"] != c.source {
				t.Fatalf("scan of tiny-mcp %s: %v", c.version, sr)
			}
		}

		refused(t, "live submit of the hostile package", call(t, "POST", in.URL+"/v1/versions", owner,
			map[string]any{"serverJson": fetchedServerJSON("evil-mcp", "1.0.0", ""), "live": true}),
			http.StatusConflict, `"helper"`, "github:evil/helper")
		ok(t, "submit the hostile package", call(t, "POST", in.URL+"/v1/versions", owner,
			map[string]any{"serverJson": fetchedServerJSON("evil-mcp", "1.0.1", ""), "tools": `{"tools":[]}`}))
		sr := ok(t, "scan the hostile package", call(t, "POST", in.URL+"/v1/servers/io.github.acme/evil-mcp/versions/1.0.1/scan", reviewer, map[string]any{})).json(t)
		if sc := sr["scan"].(map[string]any); sc["outcome"] != string(states.OutcomeError) || sc["errorKind"] != string(states.ErrorKindDependencySpec) || !strings.Contains(sc["error"].(string), `"helper"`) {
			t.Fatalf("scan of the hostile package: %v", sr)
		}
		v := ok(t, "get the hostile version", call(t, "GET", in.URL+"/v1/servers/io.github.acme/evil-mcp/versions/1.0.1", reviewer, nil)).json(t)
		if !hasHighFinding(v, registry.KindDependencySpec) {
			t.Fatalf("no high dependency finding: %v", v["findings"])
		}
		refused(t, "approve the hostile version", call(t, "POST", in.URL+"/v1/servers/io.github.acme/evil-mcp/versions/1.0.1/approve", reviewer,
			map[string]any{"reason": "looks fine"}), http.StatusConflict, "cannot approve", `"helper"`, "depends only on versions or ranges")
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the hostile package's script ran")
		}

		// A tarball that is not what the npm registry says it is: a
		// digest mismatch although the version declares nothing.
		ok(t, "submit broken-mcp", call(t, "POST", in.URL+"/v1/versions", owner,
			map[string]any{"serverJson": fetchedServerJSON("broken-mcp", "1.0.0", ""), "tools": `{"tools":[]}`}))
		sr = ok(t, "scan broken-mcp", call(t, "POST", in.URL+"/v1/servers/io.github.acme/broken-mcp/versions/1.0.0/scan", reviewer, map[string]any{})).json(t)
		if sc := sr["scan"].(map[string]any); sc["outcome"] != string(states.OutcomeError) || sc["errorKind"] != string(states.ErrorKindDigestMismatch) ||
			!strings.Contains(sc["error"].(string), "npm registry publishes integrity "+other.String()) {
			t.Fatalf("scan of a tarball the registry's integrity does not match: %v", sr)
		}
		v = ok(t, "get broken-mcp", call(t, "GET", in.URL+"/v1/servers/io.github.acme/broken-mcp/versions/1.0.0", reviewer, nil)).json(t)
		if !hasHighFinding(v, registry.KindDigestMismatch) {
			t.Fatalf("no high digest finding: %v", v["findings"])
		}
	})
}
