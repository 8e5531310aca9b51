package scan_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/scan"
)

// fleet serves n MCP servers (Go SDK, Streamable HTTP) from one process,
// server i at /s/i.
func fleet(b *testing.B, n int) string {
	mux := http.NewServeMux()
	for i := range n {
		s := mcp.NewServer(&mcp.Implementation{Name: fmt.Sprintf("fleet-%d", i), Version: "1.0.0"}, nil)
		for j := range 5 {
			s.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool_%d", j), Description: fmt.Sprintf("Tool %d of server %d.", j, i),
				InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
		}
		mux.Handle(fmt.Sprintf("/s/%d", i), mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	}
	ts := httptest.NewServer(mux)
	b.Cleanup(ts.Close)
	return ts.URL
}

// BenchmarkFleetScan500 scans a fleet of 500 servers end to end (initialize,
// two listings, strict parsing, pins) at concurrency 16 and reports
// servers per second and the p99 scan time.
func BenchmarkFleetScan500(b *testing.B) {
	const n, concurrency = 500, 16
	base := fleet(b, n)
	allow, err := scan.ParseAllowList("127.0.0.1/32")
	if err != nil {
		b.Fatal(err)
	}
	r, err := scan.NewReader(scan.Limits{}, allow)
	if err != nil {
		b.Fatal(err)
	}
	var durs []time.Duration
	start := time.Now()
	for b.Loop() {
		durs = append(durs, scanFleet(b, r, base, n, concurrency)...)
	}
	el := time.Since(start)
	slices.Sort(durs)
	b.ReportMetric(float64(len(durs))/el.Seconds(), "servers/s")
	b.ReportMetric(float64(durs[len(durs)*99/100].Milliseconds()), "p99-ms")
}

func scanFleet(b *testing.B, r *scan.Reader, base string, n, concurrency int) []time.Duration {
	var mu sync.Mutex
	var wg sync.WaitGroup
	durs := make([]time.Duration, 0, n)
	sem := make(chan struct{}, concurrency)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			t0 := time.Now()
			snap, err := r.Read(context.Background(), scan.HTTPTarget{URL: fmt.Sprintf("%s/s/%d", base, i)})
			if err != nil || len(snap.Tools.Tools) != 5 {
				b.Errorf("server %d: %v", i, err)
				return
			}
			mu.Lock()
			durs = append(durs, time.Since(t0))
			mu.Unlock()
		}()
	}
	wg.Wait()
	return durs
}
