package cli_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// watchDiscoveryTTL is the shortest discovery document lifetime the
// registry accepts (config.Verify): a document read is valid for 7.5s to
// 10s (the registry signs at the start of each quarter of the lifetime).
const watchDiscoveryTTL = 10 * time.Second

// outageProxy stands between the gate and the registry. While cut it
// drops every connection without an answer: the registry cannot be
// reached.
type outageProxy struct {
	srv *httptest.Server
	cut atomic.Bool
}

func newOutageProxy(t *testing.T, target string) *outageProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	p := &outageProxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.cut.Load() {
			panic(http.ErrAbortHandler) // close the connection, answer nothing
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// setCut cuts the registry off (or restores it), closing the connections
// kept alive so far.
func (p *outageProxy) setCut(cut bool) {
	p.cut.Store(cut)
	if cut {
		p.srv.CloseClientConnections()
	}
}

// startWatchEnv is startGateEnv with discovery documents of
// watchDiscoveryTTL, and a gate that reaches the registry only through
// the returned proxy: e.in is a copy of the instance whose URL is the
// proxy's; registryURL is the registry itself, for the CLI calls of
// owners and reviewers.
func startWatchEnv(t *testing.T) (e *gateEnv, proxy *outageProxy, registryURL string) {
	t.Helper()
	in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) { c.DiscoveryTTL = watchDiscoveryTTL })
	proxy = newOutageProxy(t, in.URL)
	viaProxy := *in
	viaProxy.URL = proxy.srv.URL
	return setUpGateEnv(t, in, &viaProxy), proxy, in.URL
}

// heldUntil matches the gate's warning that a read of the discovery
// document failed, and the expiry of the document in hand.
var heldUntil = regexp.MustCompile(`the one in hand holds until it expires" expires=(\S+)`)

// TestGateWithholdsOnceTheDocumentExpiresUnread: the registry becomes
// unreachable while a host is connected through the gate. Until the
// discovery document in hand expires, calls pass (the gate says on stderr
// that the document could not be read again, and until when it holds);
// from its expiry on, listings and calls are refused, naming the expiry,
// and nothing more reaches the server. Every call left a receipt, which
// the registry receives once it is back.
func TestGateWithholdsOnceTheDocumentExpiresUnread(t *testing.T) {
	e, proxy, registryURL := startWatchEnv(t)
	g := e.startGate(t, append([]string{"--refresh", "1s"}, e.gateArgs("npx", "-y", gatePackage+"@1.0.0")...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	host := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1.0.0"}, nil)
	session, err := host.Connect(ctx, &mcp.IOTransport{Reader: g.hostOut, Writer: g.hostIn}, nil)
	if err != nil {
		t.Fatalf("connecting through the gate: %v\nstderr:\n%s", err, g.stderr)
	}
	forecast := func() error {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": "Paris"}})
		if err == nil && (res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Sunny, 21 °C")) {
			t.Fatalf("get_forecast answered %+v", res)
		}
		return err
	}
	if res, err := session.ListTools(ctx, &mcp.ListToolsParams{}); err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "get_forecast" {
		t.Fatalf("listing with the registry reachable: %v %+v", err, res)
	}
	if err := forecast(); err != nil {
		t.Fatalf("calling get_forecast with the registry reachable: %v", err)
	}

	proxy.setCut(true)
	var expires time.Time
	testkit.Eventually(t, 20*time.Second, func() bool {
		m := heldUntil.FindStringSubmatch(g.stderr.String())
		if m == nil {
			return false
		}
		if expires, err = time.Parse(time.RFC3339, m[1]); err != nil {
			t.Fatalf("the gate's warning names expiry %q: %v", m[1], err)
		}
		return true
	}, "the gate never warned that the discovery document could not be read again\nstderr:\n%s", g.stderr)
	err = forecast()
	if !time.Now().Before(expires) {
		t.Fatalf("the call during the outage ended after the document in hand expired at %s: this machine was too slow to tell", expires)
	}
	if err != nil {
		t.Fatalf("with the registry unreachable and the document in hand valid until %s, a call was refused: %v", expires, err)
	}

	why := "the discovery document expired at " + expires.UTC().Format(time.RFC3339) + " and no fresh one could be read"
	testkit.Eventually(t, 30*time.Second, func() bool { return strings.Contains(g.stderr.String(), `msg="gate: server withheld"`) },
		"the gate never withheld the server after the document in hand expired at %s\nstderr:\n%s", expires, g.stderr)
	if now := time.Now(); now.Before(expires) {
		t.Errorf("the server was withheld at %s, before the document in hand expired at %s", now, expires)
	}
	if _, err := session.ListTools(ctx, &mcp.ListToolsParams{}); err == nil || !strings.Contains(err.Error(), why) {
		t.Errorf("listing after the expiry: %v, want an error saying %q", err, why)
	}
	if err := forecast(); err == nil || !strings.Contains(err.Error(), why) {
		t.Errorf("calling get_forecast after the expiry: %v, want an error saying %q", err, why)
	}

	proxy.setCut(false) // the receipts reach the registry when the gate stops
	_ = session.Close()
	_ = g.hostIn.Close()
	if err := g.wait(t); err != nil {
		t.Errorf("the gate ended with %v\nstderr:\n%s", err, g.stderr)
	}
	if calls, _ := os.ReadFile(e.calls); string(calls) != "get_forecast\nget_forecast\n" {
		t.Errorf("the server received %q, want the two calls made before the expiry", calls)
	}
	checkWatchReceipts(t, e, registryURL, why)
}

// checkWatchReceipts: two committed calls and the refused one, in the file
// and at the registry.
func checkWatchReceipts(t *testing.T, e *gateEnv, registryURL, why string) {
	t.Helper()
	receipts, err := gate.ReadReceiptFile(e.receipt)
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []string
	for _, r := range receipts {
		outcomes = append(outcomes, string(r.Outcome))
	}
	if got := strings.Join(outcomes, ","); got != "committed,committed,rejected" || !strings.Contains(receipts[2].Reason, why) {
		t.Fatalf("receipts %+v, want two committed and one rejected saying %q", receipts, why)
	}
	var listed struct {
		Receipts []struct {
			ID string `json:"receiptId"`
		}
	}
	decodeJSON(t, mustRun(t, registryURL, e.reviewer, "receipts", "list", "--name", gateServerName, "-o", "json"), &listed)
	if len(listed.Receipts) != len(receipts) || listed.Receipts[0].ID != receipts[2].ID {
		t.Errorf("the registry lists %+v, the gate wrote %+v", listed.Receipts, receipts)
	}
}
