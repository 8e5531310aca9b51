package gate_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/contract"
)

// benchTools are ten tools of a realistic size.
func benchTools() []string {
	tools := make([]string, 10)
	for i := range tools {
		tools[i] = fmt.Sprintf(`{"name":"tool_%d","description":"Looks up record %d in the inventory and returns its fields.","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"limit":{"type":"integer"}},"required":["id"]}}`, i, i)
	}
	return tools
}

// benchResult is a tool result of about 4 KiB of benign text.
var benchResult = func() string {
	text := strings.Repeat("The forecast for the region is mild with light winds. ", 80)[:4096]
	b, _ := json.Marshal(text)
	return `{"content":[{"type":"text","text":` + string(b) + `}],"isError":false}`
}()

// echoServer answers tools/list with tools and every tools/call with
// benchResult, until in ends.
func echoServer(in io.Reader, out io.Writer, tools []string) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		result := benchResult
		if m.Method == "tools/list" {
			result = `{"tools":[` + strings.Join(tools, ",") + `]}`
		}
		_, _ = w.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + "}\n")
		_ = w.Flush()
	}
}

// benchEntry approves tools under a contract that lets a read session
// call them freely, with results filtered and marked (the detectors run).
func benchEntry(b *testing.B, tools []string) discovery.Entry {
	b.Helper()
	e := discovery.Entry{Name: "io.github.acme/inventory", Version: "1.0.0"}
	var names []string
	c := contract.Default()
	none, idem, timeout := contract.Approval{Mode: contract.ApprovalNone}, contract.Idempotent, int64(60)
	for _, raw := range tools {
		var t struct{ Name string }
		_ = json.Unmarshal([]byte(raw), &t)
		e.Pins.Tools = append(e.Pins.Tools, discovery.ToolPin{Name: t.Name, Hash: toolHash(b, raw)})
		names = append(names, t.Name)
		c.Tools = append(c.Tools, contract.ToolSpec{Name: t.Name, RiskTier: contract.TierRead, Approval: &none, Idempotency: &idem, TimeoutSeconds: &timeout})
	}
	var err error
	if e.Contract, err = json.Marshal(c.Normalize(names)); err != nil {
		b.Fatal(err)
	}
	return e
}

// roundTrips makes b.N tools/call round trips over (w, r) and reports the
// latency percentiles.
func roundTrips(b *testing.B, w io.Writer, r *bufio.Reader) {
	b.Helper()
	line := func(id int, method, params string) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":` + params + "}\n"
	}
	if _, err := io.WriteString(w, line(0, "tools/list", `{}`)); err != nil {
		b.Fatal(err)
	}
	if _, err := r.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if _, err := io.WriteString(w, line(i+1, "tools/call", `{"name":"tool_3","arguments":{"id":"A-17","limit":5}}`)); err != nil {
			b.Fatal(err)
		}
		answer, err := r.ReadBytes('\n')
		if err != nil || !strings.Contains(string(answer), `"id":`+strconv.Itoa(i+1)+`,`) {
			b.Fatalf("answer %d: %v %.200s", i+1, err, answer)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkToolsCallDirect is the baseline: a host calling the server
// over stdio pipes, nothing between them.
func BenchmarkToolsCallDirect(b *testing.B) {
	tools := benchTools()
	toSrvR, toSrvW := io.Pipe()
	fromSrvR, fromSrvW := io.Pipe()
	go echoServer(toSrvR, fromSrvW, tools)
	defer func() { _ = toSrvW.Close() }()
	roundTrips(b, toSrvW, bufio.NewReaderSize(fromSrvR, 64<<10))
}

// BenchmarkToolsCallThroughGate is the same calls through the gate's
// relay: the tool checked against the listing, arguments against the
// schema and contract, the 4 KiB result through the poisoning detectors
// and wrapped in boundary markers, a receipt written (in memory).
func BenchmarkToolsCallThroughGate(b *testing.B) {
	tools := benchTools()
	toSrvR, toSrvW := io.Pipe()
	fromSrvR, fromSrvW := io.Pipe()
	go echoServer(toSrvR, fromSrvW, tools)
	hostInR, hostInW := io.Pipe()
	hostOutR, hostOutW := io.Pipe()
	relay := gate.NewRelay(gate.Options{Entry: benchEntry(b, tools), Receipts: &memSink{}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = relay.Run(ctx, hostInR, hostOutW, fromSrvR, toSrvW) }()
	defer func() { _ = hostInW.Close() }()
	roundTrips(b, hostInW, bufio.NewReaderSize(hostOutR, 64<<10))
}
