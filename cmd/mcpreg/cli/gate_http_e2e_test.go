package cli_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/cmd/mcpreg/cli"
	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// TestGateRemoteURL: the stdio wrapper relays a remote named by --url
// when it is one of the approved version's remotes, and refuses any
// other URL under the approved name.
func TestGateRemoteURL(t *testing.T) {
	e := startGateEnv(t)
	args := func(url string) []string {
		return []string{"gate", "--name", gateServerName, "--key", e.key, "--state", e.state, "--receipts", e.receipt, "--url", url}
	}
	g := e.startGate(t, args(e.remote.url+"/")...) // a trailing slash is the same URL
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	host := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1.0.0"}, nil)
	session, err := host.Connect(ctx, &mcp.IOTransport{Reader: g.hostOut, Writer: g.hostIn}, nil)
	if err != nil {
		t.Fatalf("connecting through the gate: %v\nstderr:\n%s", err, g.stderr)
	}
	res, err := session.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "get_forecast" {
		t.Fatalf("listing through the gate: %v %+v (a read session sees get_forecast only)", err, res)
	}
	call, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": "Paris"}})
	if err != nil || call.IsError {
		t.Fatalf("calling the remote through the gate: %v %+v", err, call)
	}
	_ = session.Close()
	if err := g.wait(t); err != nil {
		t.Errorf("the gate ended with %v\n%s", err, g.stderr)
	}
	receipts, err := gate.ReadReceiptFile(e.receipt)
	if err != nil || len(receipts) != 1 || receipts[0].Outcome != gate.OutcomeCommitted || receipts[0].Tool != "get_forecast" {
		t.Errorf("receipts %+v %v, want the committed call", receipts, err)
	}

	other := e.startGate(t, args("http://127.0.0.1:1/mcp")...)
	err = other.wait(t)
	if err == nil || !strings.Contains(err.Error(), "is none of the remotes of "+gateServerName+"@1.0.0") {
		t.Errorf("an unapproved URL: %v, want a refusal naming the approved remotes", err)
	}
}

// TestGateServe: mcpreg gate serve relays, for a Go SDK host presenting
// its host token, the approved version's remote with every check; no
// token, or a token that is not a host's, is 401; receipts reach the
// registry under the host's token.
func TestGateServe(t *testing.T) {
	e := startGateEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gs := startGateServe(ctx, t, e.in.URL, e.dir, "--key", e.key, "--state", e.state, "--receipts", e.receipt,
		"--host-scopes", "laptop=read,write")
	addr, stderr := gs.addr, gs.stderr
	endpoint := "http://" + addr + "/servers/" + gateServerName + "/mcp"

	for name, token := range map[string]string{"no token": "", "a reviewer's token": e.reviewer, "a made-up token": "mcpreg_nope"} {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, resp.StatusCode)
		}
	}

	host := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1.0.0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{e.host}}}
	session, err := host.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connecting through gate serve: %v\n%s", err, stderr)
	}
	defer func() { _ = session.Close() }()
	res, err := session.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != 2 {
		t.Fatalf("listing: %v %+v (laptop has read and write: both tools)", err, res)
	}
	call, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": "Paris"}})
	if err != nil || call.IsError {
		t.Fatalf("calling: %v %+v", err, call)
	}
	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "get_alerts", Arguments: map[string]any{"state": "CA"}})
	if err == nil || !strings.Contains(err.Error(), "idempotency") {
		t.Errorf("a requires_key tool without a key: %v, want the gate's refusal", err)
	}
	_ = session.Close()
	gs.stop(t, cancel) // the gateway sends what is queued as it stops
	var listed struct {
		Receipts []struct {
			Tool, Outcome string
		}
	}
	decodeJSON(t, mustRun(t, e.in.URL, e.reviewer, "receipts", "list", "--name", gateServerName, "-o", "json"), &listed)
	if len(listed.Receipts) != 2 {
		t.Errorf("the registry lists %+v, want the committed and the rejected call", listed.Receipts)
	}
}

// runningGateServe is mcpreg gate serve run in-process.
type runningGateServe struct {
	addr   string // where it listens
	stderr *testkit.SyncBuffer
	done   chan error // its error once ctx ended
}

// startGateServe runs mcpreg gate serve --listen 127.0.0.1:0 ARGS against
// the registry at server until ctx ends, and waits until it listens.
func startGateServe(ctx context.Context, t *testing.T, server, home string, args ...string) *runningGateServe {
	t.Helper()
	g := &runningGateServe{stderr: &testkit.SyncBuffer{}, done: make(chan error, 1)}
	env := map[string]string{"MCPREG_SERVER": server, "HOME": home}
	cmd := cli.NewRootCmd(cli.Streams{Out: io.Discard, Err: g.stderr, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	cmd.SetArgs(append([]string{"gate", "serve", "--listen", "127.0.0.1:0"}, args...))
	go func() { g.done <- cmd.ExecuteContext(ctx) }()
	serving := regexp.MustCompile(`serving http://(\S+)/servers/`)
	testkit.Eventually(t, 30*time.Second, func() bool {
		if m := serving.FindStringSubmatch(g.stderr.String()); m != nil {
			g.addr = m[1]
		}
		return g.addr != ""
	}, "gate serve starts:\n%s", g.stderr)
	return g
}

// stop ends it (ctx's cancel) and fails the test unless it ended cleanly.
func (g *runningGateServe) stop(t *testing.T, cancel context.CancelFunc) {
	t.Helper()
	cancel()
	select {
	case err := <-g.done:
		if err != nil {
			t.Errorf("gate serve ended with %v\n%s", err, g.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("gate serve did not stop:\n%s", g.stderr)
	}
}

// bearer adds a host token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestGateSearchMode: with --search-mode the host sees two tools; the
// search finds the fixture's tools the session may use, and a found tool
// is called through the gate with every check (the contract marks the
// result), leaving a receipt.
func TestGateSearchMode(t *testing.T) {
	e := startGateEnv(t)
	args := e.gateArgs("npx", "-y", gatePackage+"@1.0.0")
	g := e.startGate(t, append([]string{args[0], "--search-mode"}, args[1:]...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	host := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1.0.0"}, nil)
	session, err := host.Connect(ctx, &mcp.IOTransport{Reader: g.hostOut, Writer: g.hostIn}, nil)
	if err != nil {
		t.Fatalf("connecting through the gate: %v (the gate: %v)\nstderr:\n%s", err, g.wait(t), g.stderr)
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 || tools.Tools[0].Name != gate.SearchToolName {
		t.Fatalf("search mode lists %v %+v", err, tools)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: gate.SearchToolName, Arguments: map[string]any{"query": "weather"}})
	if err != nil || res.IsError {
		t.Fatalf("searching: %v %+v\n%s", err, res, g.stderr)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, `"tool":"get_forecast"`) || strings.Contains(text, "get_alerts") {
		t.Errorf("a read session's search: %s (get_alerts writes: not found)", text)
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: gate.CallToolName,
		Arguments: map[string]any{"server": gateServerName, "tool": "get_forecast", "arguments": map[string]any{"city": "Paris"}}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "[mcpreg:untrusted-content ") {
		t.Fatalf("calling a found tool: %v %+v", err, res)
	}
	_ = session.Close()
	if err := g.wait(t); err != nil {
		t.Errorf("the gate ended with %v\n%s", err, g.stderr)
	}
	receipts, err := gate.ReadReceiptFile(e.receipt)
	if err != nil || len(receipts) != 1 || receipts[0].Tool != "get_forecast" || receipts[0].Outcome != gate.OutcomeCommitted {
		t.Errorf("receipts %+v %v", receipts, err)
	}
}
