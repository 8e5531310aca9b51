package gate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/gate"
)

// Everything below runs in one process at the default GOMAXPROCS: the
// load (Go SDK clients), the gateway and the Go SDK server share the
// machine's cores through the Go scheduler, each an httptest server or
// client on loopback.

// benchVersion is the protocol version the bench clients speak (set
// explicitly: the SDK's default would first try a discovery round trip).
const benchVersion = "2025-11-25"

// benchSessions is the number of concurrent sessions of the throughput
// benchmark.
const benchSessions = 32

// sdkBenchServer is a Go SDK server over Streamable HTTP on loopback with
// the ten bench tools, each answering with the 4 KiB bench result. It
// returns its endpoint and the raw tool definitions it serves.
func sdkBenchServer(b *testing.B) (string, []string) {
	b.Helper()
	var result struct {
		Content []struct{ Text string }
	}
	if err := json.Unmarshal([]byte(benchResult), &result); err != nil {
		b.Fatal(err)
	}
	text := result.Content[0].Text
	srv := mcp.NewServer(&mcp.Implementation{Name: "inventory", Version: "1.0.0"}, nil)
	for _, raw := range benchTools() {
		var t struct {
			Name, Description string
			InputSchema       json.RawMessage
		}
		if err := json.Unmarshal([]byte(raw), &t); err != nil {
			b.Fatal(err)
		}
		srv.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
			})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	b.Cleanup(ts.Close)
	return ts.URL, rawTools(b, ts.URL)
}

// rawTools lists the tools of the Streamable HTTP server at url as the
// bytes it sends: the pins are of those (the SDK's mcp.Tool does not
// round-trip them).
func rawTools(b *testing.B, url string) []string {
	b.Helper()
	var session string
	rawPost(b, url, &session, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+benchVersion+
		`","capabilities":{},"clientInfo":{"name":"bench-pins","version":"1"}}}`)
	rawPost(b, url, &session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var list struct {
		Result struct{ Tools []json.RawMessage }
	}
	answer := rawPost(b, url, &session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if err := json.Unmarshal(answer, &list); err != nil || len(list.Result.Tools) != 10 {
		b.Fatalf("tools/list: %v %.300s", err, answer)
	}
	tools := make([]string, len(list.Result.Tools))
	for i, t := range list.Result.Tools {
		tools[i] = string(t)
	}
	return tools
}

// rawPost posts one message in the session (set from the answer when
// empty) and returns the answer: the JSON body, or the data of the event
// stream's first event.
func rawPost(b *testing.B, url string, session *string, body string) []byte {
	b.Helper()
	req, err := http.NewRequestWithContext(b.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", benchVersion)
	if *session != "" {
		req.Header.Set("Mcp-Session-Id", *session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if *session == "" {
		*session = resp.Header.Get("Mcp-Session-Id")
	}
	answer, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode/100 != 2 {
		b.Fatalf("POST %.60s: %d %v %.300s", body, resp.StatusCode, err, answer)
	}
	for line := range strings.Lines(string(answer)) {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return []byte(data)
		}
	}
	return answer
}

// benchGateway is a gateway whose one host token may use the server at
// upstream, pinned to tools under benchEntry's contract (results filtered
// and marked: the detectors run), receipts kept in memory. It returns the
// server's endpoint on the gateway.
func benchGateway(b *testing.B, upstream string, tools []string) string {
	b.Helper()
	en := benchEntry(b, tools)
	en.Remotes = []discovery.Remote{{Type: "streamable-http", URL: upstream}}
	view := &gate.View{Doc: &discovery.Document{Sequence: 1, ExpiresAt: time.Now().Add(time.Hour), Servers: []discovery.Entry{en}},
		Scopes: []string{gate.ScopeRead}, Principal: "host:bench"}
	sink := &memSink{}
	gw := gate.NewGateway(gate.GatewayOptions{
		View: func(_ context.Context, token string) (*gate.View, error) {
			if token != gwToken {
				return nil, gate.ErrTokenRefused
			}
			return view, nil
		},
		Connect: func(_ context.Context, e discovery.Entry) (gate.Conn, error) {
			return gate.DialRemote(gate.RemoteOptions{URL: e.Remotes[0].URL})
		},
		Receipts: func(string) gate.ReceiptSink { return sink },
	})
	srv := httptest.NewServer(gw)
	b.Cleanup(func() { gw.Close(); srv.Close() })
	return srv.URL + "/servers/" + en.Name + "/mcp"
}

// tokenTransport adds a host token to every request sent through base.
type tokenTransport struct {
	token string
	base  http.RoundTripper
}

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

// benchHTTP is the load's HTTP client: one transport for all its sessions,
// keeping a connection for each session's stream and request (the default
// keeps two per host, and would reconnect all the time), with the host
// token when token is set.
func benchHTTP(b *testing.B, token string) *http.Client {
	b.Helper()
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 4 * benchSessions
	b.Cleanup(t.CloseIdleConnections)
	if token == "" {
		return &http.Client{Transport: t}
	}
	return &http.Client{Transport: tokenTransport{token: token, base: t}}
}

// openSession connects the Go SDK as the host and lists the tools (the
// gate refuses a call before a listing).
func openSession(b *testing.B, endpoint string, hc *http.Client) *mcp.ClientSession {
	b.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-host", Version: "1.0.0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}
	cs, err := client.Connect(b.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: benchVersion})
	if err != nil {
		b.Fatalf("connecting to %s: %v", endpoint, err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	if res, err := cs.ListTools(b.Context(), nil); err != nil || len(res.Tools) != 10 {
		b.Fatalf("tools/list: %v, want 10 tools", err)
	}
	return cs
}

// callTool makes one call with small arguments and checks that the 4 KiB
// result came back.
func callTool(ctx context.Context, cs *mcp.ClientSession, tool string) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"id": "A-17", "limit": 5}})
	switch {
	case err != nil:
		return fmt.Errorf("calling %s: %w", tool, err)
	case res.IsError || len(res.Content) != 1:
		return fmt.Errorf("calling %s: an error or not one content item: %+v", tool, res)
	}
	if text, ok := res.Content[0].(*mcp.TextContent); !ok || len(text.Text) < 4096 {
		return fmt.Errorf("calling %s: want the 4 KiB text, got %+v", tool, res.Content[0])
	}
	return nil
}

// benchTarget is what the load calls: an endpoint and the HTTP client
// that reaches it.
type benchTarget struct {
	name    string
	connect func(b *testing.B) (endpoint string, hc *http.Client)
}

// benchTargets are the server itself, and the same server through the
// gateway.
var benchTargets = []benchTarget{
	{"direct", func(b *testing.B) (string, *http.Client) {
		url, _ := sdkBenchServer(b)
		return url, benchHTTP(b, "")
	}},
	{"gateway", func(b *testing.B) (string, *http.Client) {
		url, tools := sdkBenchServer(b)
		return benchGateway(b, url, tools), benchHTTP(b, gwToken)
	}},
}

// BenchmarkGatewayToolsCall is the latency of sequential tools/call round
// trips, Go SDK client to Go SDK server over Streamable HTTP, directly and
// through the gateway (the call checked, the 4 KiB result through the
// detectors and marked, a receipt written in memory).
func BenchmarkGatewayToolsCall(b *testing.B) {
	for _, target := range benchTargets {
		b.Run(target.name, func(b *testing.B) {
			endpoint, hc := target.connect(b)
			cs := openSession(b, endpoint, hc)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				if err := callTool(b.Context(), cs, "tool_3"); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			reportLatency(b, lat)
		})
	}
}

// reportLatency reports the p50 and p99 of lat in microseconds.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(lat[len(lat)/2]), "p50-µs")
	b.ReportMetric(us(lat[len(lat)*99/100]), "p99-µs")
}

// BenchmarkGatewayThroughput is calls per second with benchSessions
// sessions calling at once, each in a loop, directly and through the
// gateway; b.N calls in all. Connecting and the first listing of each
// session are not timed.
func BenchmarkGatewayThroughput(b *testing.B) {
	for _, target := range benchTargets {
		b.Run(target.name, func(b *testing.B) {
			endpoint, hc := target.connect(b)
			sessions := make([]*mcp.ClientSession, benchSessions)
			for i := range sessions {
				sessions[i] = openSession(b, endpoint, hc)
			}
			names := make([]string, 10)
			for i := range names {
				names[i] = fmt.Sprintf("tool_%d", i)
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for _, cs := range sessions {
				wg.Go(func() {
					for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
						if err := callTool(b.Context(), cs, names[i%10]); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
		})
	}
}
