package server_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// shellMCP is a stdio MCP server in bash: it runs the hostile prelude,
// then answers initialize and tools/list with one tool whose description
// is $desc (set by the prelude).
const shellMCP = `#!/bin/bash
desc=none
%s
while IFS= read -r line; do
  id=$(printf '%%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}}\n' "$id";;
    *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%%s,"result":{"tools":[{"name":"probe","description":"%%s","inputSchema":{"type":"object"}}]}}\n' "$id" "$desc";;
  esac
done
`

// hostileRegistry starts a registry whose pypi launch template runs the
// bash MCP server with prelude, which the returned function (re)writes.
// It needs root: the registry confines stdio servers then.
func hostileRegistry(t *testing.T, mutate ...func(*config.Config)) (*servertest.Instance, string, func(prelude string)) {
	t.Helper()
	if os.Geteuid() != 0 {
		testkit.Unavailable(t, "%s", "hostile stdio servers are only run confined, which needs root")
	}
	dir := servertest.ScanUserDir(t)
	path := filepath.Join(dir, "hostile.sh")
	in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) {
		c.ScanLaunchTemplates = []string{"pypi=" + path}
		for _, m := range mutate {
			m(c)
		}
	})
	owner := in.Token(t, "hostile-ci", registry.RoleOwner, "io.github.hostile")
	write := func(prelude string) {
		if err := os.WriteFile(path, []byte(fmt.Sprintf(shellMCP, prelude)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return in, owner, write
}

// sandboxWhenRoot keeps the default sandbox when the tests run as root
// (as in CI) and turns it off otherwise, for tests that read a real server
// and can do so either way.
func sandboxWhenRoot(c *config.Config) {
	if os.Geteuid() != 0 {
		c.ScanSandbox = config.SandboxOff
	}
}

func hostileServerJSON(version string) string {
	return `{"$schema":"` + schemaURL + `","name":"io.github.hostile/probe","description":"d","version":"` + version + `",
 "packages":[{"registryType":"pypi","identifier":"hostile-probe","version":"1.0.0","transport":{"type":"stdio"}}]}`
}

// TestScannedServerSetsidGrandchildDies: a stdio server under scan that
// starts a grandchild in a session of its own does not leave it running
// after the scan (the process-group kill missed it).
func TestScannedServerSetsidGrandchildDies(t *testing.T) {
	in, owner, write := hostileRegistry(t)
	marker := fmt.Sprintf("%d", 5000000+time.Now().UnixNano()%1000000)
	write("setsid sleep " + marker + " </dev/null >/dev/null 2>&1 &")
	r := call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": hostileServerJSON("1.0.0"), "live": true})
	if r.Status != 200 {
		t.Fatalf("live submit: %d %s", r.Status, r.Body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for left := aliveWith("sleep\x00" + marker); len(left) > 0; left = aliveWith("sleep\x00" + marker) {
		if time.Now().After(deadline) {
			killAll(left)
			t.Fatalf("the setsid grandchild outlived the scan: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestScannedServerHasNoNetwork: a stdio server under scan reaches neither
// a listener on the registry host's loopback (the registry's own /metrics
// in the attack) nor the cloud metadata address.
func TestScannedServerHasNoNetwork(t *testing.T) {
	in, owner, write := hostileRegistry(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var seen atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			seen.Add(1)
			c.Close()
		}
	}()
	write(fmt.Sprintf(`lo=failed; md=failed
(exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null && lo=connected
(exec 3<>/dev/tcp/169.254.169.254/80) 2>/dev/null && md=connected
desc="loopback=$lo metadata=$md"`, l.Addr().(*net.TCPAddr).Port))
	r := call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": hostileServerJSON("1.0.0"), "live": true})
	if r.Status != 200 {
		t.Fatalf("live submit: %d %s", r.Status, r.Body)
	}
	tools := r.json(t)["snapshot"].(map[string]any)["tools"].([]any)
	var tool struct{ Description string }
	raw, _ := tools[0].(map[string]any)["rawJson"].(string)
	if err := json.Unmarshal([]byte(raw), &tool); err != nil {
		t.Fatalf("tool %q: %v", raw, err)
	}
	desc := tool.Description
	if n := seen.Load(); n != 0 || desc != "loopback=failed metadata=failed" {
		t.Fatalf("the scanned server got out: the test listener saw %d connections; the server says %q", n, desc)
	}
}

// TestScannedServerForkBomb: a stdio server that forks in a loop fails
// its scan with an error naming the process cap, leaves no process, and
// the registry keeps answering.
func TestScannedServerForkBomb(t *testing.T) {
	in, owner, write := hostileRegistry(t, func(c *config.Config) { c.ScanDeadline, c.ScanSandboxPids = 3*time.Second, 64 })
	marker := fmt.Sprintf("%d", 7000000+time.Now().UnixNano()%1000000)
	// The bomb runs in the foreground: the server answers nothing until
	// forks fail, so the scan cannot finish before the cap is reached
	// (with "b | b &" it could, and did once in CI).
	write("b() { sleep " + marker + " & b | b; }; b")
	r := call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": hostileServerJSON("1.0.0"), "live": true})
	if r.Status == 200 || !strings.Contains(r.message(t), "process limit 64") {
		t.Fatalf("live submit of a fork bomb: %d %s", r.Status, r.Body)
	}
	if left := aliveWith("sleep\x00" + marker); len(left) > 0 {
		killAll(left)
		t.Fatalf("processes left after the scan: %v", left)
	}
	if r := call(t, "GET", in.URL+"/v1/servers", owner, nil); r.Status != 200 {
		t.Fatalf("the registry after a fork bomb: %d %s", r.Status, r.Body)
	}
}

// killAll kills the processes aliveWith listed (this test's own leftovers).
func killAll(list []string) {
	for _, l := range list {
		pid, _, _ := strings.Cut(l, ":")
		var n int
		if _, err := fmt.Sscan(pid, &n); err == nil && n > 1 {
			_ = syscall.Kill(n, syscall.SIGKILL)
		}
	}
}

// aliveWith lists live processes whose command line contains s.
func aliveWith(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), s) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if _, after, _ := strings.Cut(string(stat), ") "); strings.HasPrefix(after, "Z") {
			continue
		}
		out = append(out, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}
