package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// The npm reference server the gate is tested against, pinned; CI
// installs it globally (npm install -g) beforehand.
const (
	everythingPackage = "@modelcontextprotocol/server-everything"
	everythingVersion = "2026.8.31"
	everythingName    = "io.github.modelcontextprotocol/everything"
	everythingBin     = "mcp-server-everything"
)

// everythingContract: echo and get-sum read, gzip-file-as-resource write;
// every other tool has no entry and so is high-risk. Egress is denied so
// that the defaulted tools raise no high finding.
const everythingContract = `contractVersion: mcpreg.contract/v1
owner: everything-team
auth: {mode: none}
isolation: local_process
egress: {mode: denied}
tools:
  - {name: echo, riskTier: read, approval: none, timeout: 10s, idempotency: idempotent}
  - {name: get-sum, riskTier: read, approval: none, timeout: 10s, idempotency: idempotent}
  - {name: gzip-file-as-resource, riskTier: write, approval: none, timeout: 10s, idempotency: requires_key}
`

// everythingScript returns node and the entry script of the globally
// installed reference server at the pinned version, or stops the test
// (testkit.Unavailable: a loud skip, a failure under
// MCPREG_TEST_REQUIRE_ALL=1).
func everythingScript(t *testing.T) (node, script string) {
	t.Helper()
	const install = "npm install -g " + everythingPackage + "@" + everythingVersion
	node, err := exec.LookPath("node")
	if err != nil {
		testkit.Unavailable(t, "node is not installed: %v", err)
	}
	root, err := exec.Command("npm", "root", "-g").Output()
	if err != nil {
		testkit.Unavailable(t, "npm root -g: %v (%s)", err, install)
	}
	dir := filepath.Join(strings.TrimSpace(string(root)), filepath.FromSlash(everythingPackage))
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		testkit.Unavailable(t, "%s is not installed globally: %v (%s)", everythingPackage, err, install)
	}
	var pkg struct {
		Name, Version string
		Bin           map[string]string
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatalf("%s/package.json: %v", dir, err)
	}
	if pkg.Name != everythingPackage || pkg.Version != everythingVersion || pkg.Bin[everythingBin] == "" {
		testkit.Unavailable(t, "%s holds %s@%s (bin %q), not %s@%s (%s)", dir, pkg.Name, pkg.Version,
			pkg.Bin[everythingBin], everythingPackage, everythingVersion, install)
	}
	return node, filepath.Join(dir, filepath.FromSlash(pkg.Bin[everythingBin]))
}

// startEverythingHTTP runs the reference server's Streamable HTTP
// transport on a free loopback port until the test ends and returns its
// MCP endpoint.
func startEverythingHTTP(t *testing.T, node, script string) string {
	t.Helper()
	port := testkit.FreePort(t)
	c := exec.Command(node, script, "streamableHttp")
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PORT=" + port}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL); _ = c.Wait() })
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(listening)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr) // keep the pipe drained
	}()
	select {
	case <-listening:
	case <-time.After(60 * time.Second):
		t.Fatal("the reference server did not start listening on Streamable HTTP")
	}
	return "http://127.0.0.1:" + port + "/mcp"
}

// startEverythingEnv approves the reference server in a registry that read
// its tools live from the Streamable HTTP transport, and returns the
// registry's snapshot of its tools by name. Hosts run its stdio transport
// through a fake npx that takes only the approved package.
func startEverythingEnv(t *testing.T) (*gateEnv, map[string]json.RawMessage) {
	t.Helper()
	node, script := everythingScript(t)
	url := startEverythingHTTP(t, node, script)
	in := servertest.Start(t, store.DialectSQLite)
	e := &gateEnv{in: in, host: in.HostToken(t, "laptop"), reviewer: in.Token(t, "alice", registry.RoleReviewer), dir: t.TempDir()}
	e.receipt, e.state = filepath.Join(e.dir, "receipts.jsonl"), filepath.Join(e.dir, "state.json")
	bin := filepath.Join(e.dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	npx := "#!/bin/sh\n[ \"$*\" = \"-y " + everythingPackage + "@" + everythingVersion + "\" ] || { echo \"fake npx: unexpected $*\" >&2; exit 64; }\n" +
		"exec \"$EVERYTHING_NODE\" \"$EVERYTHING_SCRIPT\" stdio\n"
	writeFile(t, bin, "npx", []byte(npx))
	if err := os.Chmod(filepath.Join(bin, "npx"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.environ = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + e.dir,
		"EVERYTHING_NODE=" + node, "EVERYTHING_SCRIPT=" + script, "MCPREG_TOKEN=" + e.host, "MCPREG_SERVER=" + in.URL}
	sj := writeFile(t, e.dir, "server.json", []byte(`{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
 "name":"`+everythingName+`","description":"Reference server","version":"`+everythingVersion+`",
 "packages":[{"registryType":"npm","identifier":"`+everythingPackage+`","version":"`+everythingVersion+`","transport":{"type":"stdio"}}],
 "remotes":[{"type":"streamable-http","url":"`+url+`"}]}`))
	contract := writeFile(t, e.dir, "contract.yaml", []byte(everythingContract))
	owner := in.Token(t, "everything-ci", registry.RoleOwner, "io.github.modelcontextprotocol")
	var submitted struct {
		Snapshot struct {
			Tools []struct {
				Name    string
				RawJSON string `json:"rawJson"`
			}
		}
	}
	decodeJSON(t, mustRun(t, in.URL, owner, "submit", "--server-json", sj, "--live", "--contract", contract, "-o", "json"), &submitted)
	tools := map[string]json.RawMessage{}
	for _, tool := range submitted.Snapshot.Tools {
		tools[tool.Name] = json.RawMessage(tool.RawJSON)
	}
	for _, name := range []string{"echo", "get-sum", "gzip-file-as-resource", "get-env"} {
		if tools[name] == nil {
			t.Fatalf("the registry's live read of %s lacks %s: %s", url, name, strings.Join(slices.Sorted(maps.Keys(tools)), ","))
		}
	}
	mustRun(t, in.URL, e.reviewer, "approve", everythingName, everythingVersion, "--reason", "reviewed")
	e.key = publishedKeyPEM(t, in.URL, e.dir)
	return e, tools
}

// TestGateNPMReferenceServer: a Go SDK host reaches the npm reference
// server (its stdio transport, as npx would start it) through mcpreg gate
// with a read session. The registry approved the version from a live read
// of the same server over Streamable HTTP. The host is shown exactly the
// read tools, as the server declares them; echo and get-sum answer; a
// write tool and a defaulted (high-risk) tool are neither listed nor
// callable; the calls left receipts, in the file and at the registry.
func TestGateNPMReferenceServer(t *testing.T) {
	e, declared := startEverythingEnv(t)
	g := e.startGate(t, "gate", "--name", everythingName, "--key", e.key, "--state", e.state, "--receipts", e.receipt,
		"--", "npx", "-y", everythingPackage+"@"+everythingVersion)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The SDK's default capabilities (roots): the reference server
	// registers more tools for clients with roots, sampling or
	// elicitation, which the registry's scanner (offering none) never
	// read. The gate tells the server the host offers none either (it
	// refuses those requests), so the server shows the gate what it
	// showed the scanner.
	host := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1.0.0"}, nil)
	session, err := host.Connect(ctx, &mcp.IOTransport{Reader: g.hostOut, Writer: g.hostIn}, nil)
	if err != nil {
		t.Fatalf("connecting through the gate: %v\nstderr:\n%s", err, g.stderr)
	}
	listed, err := session.ListTools(ctx, &mcp.ListToolsParams{})
	if err != nil {
		t.Fatalf("tools/list through the gate: %v\nstderr:\n%s", err, g.stderr)
	}
	var names []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
		var want struct {
			Title, Description string
			InputSchema        any
		}
		if err := json.Unmarshal(declared[tool.Name], &want); err != nil {
			t.Fatalf("listed tool %s is not in the registry's snapshot: %v", tool.Name, err)
		}
		if tool.Description != want.Description || tool.Title != want.Title || !reflect.DeepEqual(tool.InputSchema, want.InputSchema) {
			t.Errorf("tool %s listed as %q/%q %v, the server declares %q/%q %v", tool.Name, tool.Title, tool.Description, tool.InputSchema,
				want.Title, want.Description, want.InputSchema)
		}
	}
	if got := strings.Join(names, ","); got != "echo,get-sum" {
		t.Fatalf("a read session was shown %s, want echo,get-sum\nstderr:\n%s", got, g.stderr)
	}
	if listed.Tools[0].Description != "Echoes back the input string" {
		t.Errorf("echo's description %q", listed.Tools[0].Description)
	}

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello through the gate"}})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("calling echo: %v %+v\nstderr:\n%s", err, res, g.stderr)
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil || !regexp.MustCompile(`^\[mcpreg:untrusted-content [0-9a-f]{16}\]\nEcho: hello through the gate\n\[/mcpreg:untrusted-content [0-9a-f]{16}\]$`).MatchString(text.Text) {
		t.Errorf("echo answered %+v, want the server's echo within the gate's markers", res.Content[0])
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil || res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "\nThe sum of 2 and 3 is 5.\n") {
		t.Errorf("calling get-sum: %v %+v", err, res)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"gzip-file-as-resource", map[string]any{"name": "x.gz", "data": "https://example.com/"}, "scope 'write' required but not granted (this session has read)"},
		{"get-env", nil, "scope 'high_risk_execution' required but not granted (this session has read)"},
	} {
		_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("calling %s: %v, want an error saying %q", c.tool, err, c.want)
		}
	}
	if err := session.Close(); err != nil {
		t.Logf("closing the session: %v", err)
	}
	_ = g.hostIn.Close()
	if err := g.wait(t); err != nil {
		t.Fatalf("the gate ended with %v\nstderr:\n%s", err, g.stderr)
	}
	checkEverythingReceipts(t, e)
}

// checkEverythingReceipts: the echo and get-sum calls committed, the two
// refused calls were rejected, in the file and at the registry.
func checkEverythingReceipts(t *testing.T, e *gateEnv) {
	t.Helper()
	receipts, err := gate.ReadReceiptFile(e.receipt)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, r := range receipts {
		tools = append(tools, r.Tool+":"+string(r.Outcome))
	}
	if got := strings.Join(tools, ","); got != "echo:committed,get-sum:committed,gzip-file-as-resource:rejected,get-env:rejected" {
		t.Fatalf("receipts %s, want echo and get-sum committed and the two refused calls rejected", got)
	}
	if r := receipts[0]; r.Server != everythingName || r.Version != everythingVersion || r.PinRevision != 1 ||
		!strings.HasPrefix(r.ToolHash, "sha256:") || !strings.HasPrefix(r.ArgumentsDigest, "sha256:") || r.ResultDigest == "" {
		t.Errorf("receipt of the echo call: %+v", r)
	}
	var listed struct {
		Receipts []struct {
			ID                       string `json:"receiptId"`
			Outcome, Principal, Tool string
		}
	}
	decodeJSON(t, mustRun(t, e.in.URL, e.reviewer, "receipts", "list", "--name", everythingName, "-o", "json"), &listed)
	if len(listed.Receipts) != len(receipts) {
		t.Fatalf("the registry lists %d receipts, the gate wrote %d:\n%+v", len(listed.Receipts), len(receipts), listed)
	}
	for i, r := range listed.Receipts { // newest first
		local := receipts[len(receipts)-1-i]
		if r.ID != local.ID || r.Outcome != string(local.Outcome) || r.Tool != local.Tool || r.Principal != "laptop" {
			t.Errorf("registry receipt %d %+v, local %+v", i, r, local)
		}
	}
}
