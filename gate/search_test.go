package gate_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/gate"
)

const toolForecast = `{"name":"get_forecast","description":"Get the weather forecast for a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`

// searchEnv is a gateway in search mode over two servers: files (read
// approved; write changed since; delete never approved) and weather.
type searchEnv struct {
	*gatewayEnv
	weather *fakeRemote
	client  *mcp.ClientSession
}

func newSearchEnv(t *testing.T) *searchEnv {
	t.Helper()
	e := newGatewayEnv(t, []string{toolRead, toolWrite}, []string{toolRead, toolWriteChanged, toolDelete})
	s := &searchEnv{gatewayEnv: e, weather: &fakeRemote{tools: []string{toolForecast}}}
	up := httptest.NewServer(s.weather)
	t.Cleanup(up.Close)
	weather := entry(t, nil, toolForecast)
	weather.Name, weather.Title = "io.github.acme/weather", "Weather"
	weather.Remotes = []discovery.Remote{{Type: "streamable-http", URL: up.URL}}
	e.gw = gate.NewGateway(gate.GatewayOptions{
		View: func(ctx context.Context, token string) (*gate.View, error) {
			v, err := e.view(ctx, token)
			if err != nil {
				return nil, err
			}
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.entry != nil { // nil: files and weather quarantined
				v.Doc.Servers = append(v.Doc.Servers, weather)
			}
			return v, nil
		},
		Connect: func(_ context.Context, en discovery.Entry) (gate.Conn, error) {
			return gate.DialRemote(gate.RemoteOptions{URL: en.Remotes[0].URL})
		},
		Receipts:   func(string) gate.ReceiptSink { return e.sink },
		Now:        e.clock.Now,
		Refresh:    time.Second,
		SearchMode: true,
	})
	srv := httptest.NewServer(e.gw)
	t.Cleanup(func() { e.gw.Close(); srv.Close() })
	e.url = srv.URL + gate.SearchPath
	s.client = e.connect("2025-11-25")
	return s
}

// found is a search's structured result.
type found struct {
	Results []struct {
		Server, Tool, Description, RiskTier string
		InputSchema                         json.RawMessage
	}
	Truncated bool
}

func (s *searchEnv) search(query string) found {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := s.client.CallTool(ctx, &mcp.CallToolParams{Name: gate.SearchToolName, Arguments: map[string]any{"query": query}})
	if err != nil || res.IsError {
		s.t.Fatalf("searching %q: %v %+v", query, err, res)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		s.t.Fatal(err)
	}
	var f found
	if err := json.Unmarshal(raw, &f); err != nil {
		s.t.Fatalf("search result %s: %v", raw, err)
	}
	return f
}

func (s *searchEnv) call(server, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return s.client.CallTool(ctx, &mcp.CallToolParams{Name: gate.CallToolName,
		Arguments: map[string]any{"server": server, "tool": tool, "arguments": args}})
}

func names(f found) string {
	var out []string
	for _, r := range f.Results {
		out = append(out, r.Server+" "+r.Tool)
	}
	return strings.Join(out, ",")
}

// TestSearchMode: the host sees two tools; a search finds, over every
// approved server, only the tools the relays pass (matching pins, within
// the session's scopes), ranked by the query; a found tool is called
// through its server's relay with every check, and a tool not passed is
// refused without reaching its server.
func TestSearchMode(t *testing.T) {
	s := newSearchEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tools, err := s.client.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 || tools.Tools[0].Name != gate.SearchToolName || tools.Tools[1].Name != gate.CallToolName {
		t.Fatalf("search mode lists %v %+v, want its two tools", err, tools)
	}
	if got := names(s.search("")); got != "io.github.acme/files read,io.github.acme/weather get_forecast" {
		t.Errorf("every tool: %s (write changed, delete never approved: neither is found)", got)
	}
	f := s.search("weather forecast")
	if got := names(f); got != "io.github.acme/weather get_forecast" {
		t.Errorf("search for the forecast: %s", got)
	}
	if r := f.Results[0]; r.RiskTier != "read" || r.Description != "Get the weather forecast for a city." || !strings.Contains(string(r.InputSchema), `"city"`) {
		t.Errorf("a result: %+v", r)
	}
	if got := names(s.search("delete")); got != "" {
		t.Errorf("search for a tool never approved found %s", got)
	}

	res, err := s.call("io.github.acme/weather", "get_forecast", map[string]any{"city": "Paris"})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "done: get_forecast" {
		t.Fatalf("calling a found tool: %v %+v", err, res)
	}
	// The approved schema is enforced: city is required.
	if _, err := s.call("io.github.acme/weather", "get_forecast", map[string]any{}); err == nil || !strings.Contains(err.Error(), "city") {
		t.Errorf("a call the approved schema refuses: %v", err)
	}
	for _, tool := range []string{"delete", "write"} {
		if _, err := s.call("io.github.acme/files", tool, map[string]any{}); err == nil || !strings.Contains(err.Error(), `"`+tool+`"`) {
			t.Errorf("calling %s: %v, want the gate's refusal", tool, err)
		}
	}
	if _, err := s.call("io.github.evil/other", "x", nil); err == nil || !strings.Contains(err.Error(), "not an approved server") {
		t.Errorf("an unknown server: %v", err)
	}
	if calls := s.remote.called(); len(calls) != 0 {
		t.Errorf("files was called for %v", calls)
	}
	if calls := s.weather.called(); strings.Join(calls, ",") != "get_forecast" {
		t.Errorf("weather was called for %v, want the one admitted call", calls)
	}
	if n := len(s.sink.all()); n != 4 {
		t.Errorf("%d receipts, want one per call that named a tool of an approved server (4)", n)
	}
	for _, r := range s.weather.auth {
		if r != "" {
			t.Errorf("the server received Authorization %q", r)
		}
	}

	// A quarantine seen at the next refresh: nothing is found or called.
	s.mu.Lock()
	s.entry = nil
	s.mu.Unlock()
	s.advance(2 * time.Second)
	if got := names(s.search("")); got != "" {
		t.Errorf("after the quarantine, search found %s", got)
	}
	if _, err := s.call("io.github.acme/weather", "get_forecast", map[string]any{"city": "Paris"}); err == nil {
		t.Error("after the quarantine, a call went through")
	}
	if calls := s.weather.called(); len(calls) != 1 {
		t.Errorf("weather was called %v after the quarantine", calls)
	}
}

// TestSearchModeBadInput: calls of search mode's tools with what they do
// not take are tool errors or refusals, and other methods are not served.
func TestSearchModeBadInput(t *testing.T) {
	s := newSearchEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := s.client.CallTool(ctx, &mcp.CallToolParams{Name: gate.SearchToolName, Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"query"`) {
		t.Errorf("a search without a query: %v %+v", err, res)
	}
	res, err = s.client.CallTool(ctx, &mcp.CallToolParams{Name: gate.CallToolName, Arguments: map[string]any{"server": "io.github.acme/files"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"tool"`) {
		t.Errorf("a call without a tool: %v %+v", err, res)
	}
	if _, err := s.client.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "search mode has no tool") {
		t.Errorf("calling a server's tool directly: %v", err)
	}
	if _, err := s.client.ListPrompts(ctx, nil); err == nil {
		t.Error("search mode answered prompts/list")
	}
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("search mode without a token: %d", resp.StatusCode)
	}
}
