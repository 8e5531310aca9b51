package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
)

// startCacheEnv is startGateEnv with a gate that reaches the registry only
// through the returned proxy, and discovery documents valid for ttl (0:
// the registry's default).
func startCacheEnv(t *testing.T, ttl time.Duration) (*gateEnv, *outageProxy) {
	t.Helper()
	in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) {
		if ttl != 0 {
			c.DiscoveryTTL = ttl
		}
	})
	proxy := newOutageProxy(t, in.URL)
	viaProxy := *in
	viaProxy.URL = proxy.srv.URL
	return setUpGateEnv(t, in, &viaProxy), proxy
}

// runGateOnce starts the gate and stops it at once (the host closes its
// end): it resolves the discovery document, and so caches it.
func (e *gateEnv) runGateOnce(t *testing.T) (stderr string, err error) {
	t.Helper()
	g := e.startGate(t, e.gateArgs("npx", "-y", gatePackage+"@1.0.0")...)
	_ = g.hostIn.Close()
	err = g.wait(t)
	return g.stderr.String(), err
}

// usingCached matches the gate's warning that it started from the cached
// discovery document.
var usingCached = regexp.MustCompile(`mcpreg gate: warning: registry unreachable \((.+)\); ` +
	`using the discovery document read at (\S+), valid until (\S+)\n`)

// TestGateCacheStartsWhileRegistryUnreachable: a gate run once with the
// registry reachable keeps the signed discovery document beside its state
// file (private); with the registry then unreachable, the gate still
// starts from it, says so on stderr (why, read when, valid until when),
// lists the approved tool and relays a call to it.
func TestGateCacheStartsWhileRegistryUnreachable(t *testing.T) {
	e, proxy := startCacheEnv(t, 0)
	before := time.Now()
	if stderr, err := e.runGateOnce(t); err != nil {
		t.Fatalf("the gate with the registry reachable ended with %v\nstderr:\n%s", err, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(e.state+".cache", "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one beside the state file %s", files, e.state)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("cache file %v %v, want mode 0600", fi, err)
	}

	proxy.setCut(true)
	g := e.startGate(t, e.gateArgs("npx", "-y", gatePackage+"@1.0.0")...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	host := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1.0.0"}, nil)
	session, err := host.Connect(ctx, &mcp.IOTransport{Reader: g.hostOut, Writer: g.hostIn}, nil)
	if err != nil {
		t.Fatalf("connecting through the gate with the registry unreachable: %v\nstderr:\n%s", err, g.stderr)
	}
	m := usingCached.FindStringSubmatch(g.stderr.String())
	if m == nil {
		t.Fatalf("the gate did not warn that it uses the cached document\nstderr:\n%s", g.stderr)
	}
	readAt, err1 := time.Parse(time.RFC3339, m[2])
	validUntil, err2 := time.Parse(time.RFC3339, m[3])
	if err1 != nil || err2 != nil || readAt.Before(before.Truncate(time.Second)) || readAt.After(time.Now()) || !validUntil.After(time.Now()) ||
		!strings.Contains(m[1], "EOF") {
		t.Errorf("warning %q: want the registry's error, a read since the test began, a validity not over", m[0])
	}
	if res, err := session.ListTools(ctx, &mcp.ListToolsParams{}); err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "get_forecast" {
		t.Fatalf("listing from the cached document: %v %+v\nstderr:\n%s", err, res, g.stderr)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": "Paris"}})
	if err != nil || res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Sunny, 21 °C") {
		t.Fatalf("calling get_forecast from the cached document: %v %+v\nstderr:\n%s", err, res, g.stderr)
	}

	proxy.setCut(false) // the receipt reaches the registry when the gate stops
	_ = session.Close()
	_ = g.hostIn.Close()
	if err := g.wait(t); err != nil {
		t.Errorf("the gate ended with %v\nstderr:\n%s", err, g.stderr)
	}
	if calls, _ := os.ReadFile(e.calls); string(calls) != "get_forecast\n" {
		t.Errorf("the server received %q, want the call made during the outage", calls)
	}
}

// TestGateCacheRefusesToStartWhenExpired: with the registry unreachable
// and nothing cached, or a cached document that expired, the gate does
// not start the server, and says both why the registry failed and why
// the cache could not stand in.
func TestGateCacheRefusesToStartWhenExpired(t *testing.T) {
	e, proxy := startCacheEnv(t, watchDiscoveryTTL)
	proxy.setCut(true)
	stderr, err := e.runGateOnce(t)
	if err == nil || !strings.Contains(err.Error(), "registry unreachable (") || !strings.Contains(err.Error(), "no discovery document for this query is cached") {
		t.Fatalf("the gate with the registry unreachable and nothing cached: %v, want a refusal naming both\nstderr:\n%s", err, stderr)
	}
	if _, err := os.Stat(e.envFile); !os.IsNotExist(err) {
		t.Fatalf("the gate started the server without a discovery document (%v)", err)
	}

	proxy.setCut(false)
	read := time.Now()
	if stderr, err := e.runGateOnce(t); err != nil {
		t.Fatalf("the gate with the registry reachable ended with %v\nstderr:\n%s", err, stderr)
	}
	if err := os.Remove(e.envFile); err != nil {
		t.Fatalf("the gate did not start the server: %v", err)
	}
	proxy.setCut(true)
	// The document was read after read, and lives at most watchDiscoveryTTL.
	time.Sleep(time.Until(read.Add(watchDiscoveryTTL + 500*time.Millisecond)))
	stderr, err = e.runGateOnce(t)
	if err == nil || !strings.Contains(err.Error(), "registry unreachable (") || !strings.Contains(err.Error(), "EOF") ||
		!regexp.MustCompile(`the cached document expired at \S+Z \(read at \S+Z; `).MatchString(err.Error()) {
		t.Fatalf("the gate with the registry unreachable and the cached document expired: %v, want a refusal naming both\nstderr:\n%s", err, stderr)
	}
	if strings.Contains(stderr, "using the discovery document") {
		t.Errorf("the gate claimed to use the expired document\nstderr:\n%s", stderr)
	}
	if _, err := os.Stat(e.envFile); !os.IsNotExist(err) {
		t.Errorf("the gate started the server on an expired document (%v)", err)
	}
}
