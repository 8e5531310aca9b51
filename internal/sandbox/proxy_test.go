package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// TestProxyRefusesHostileRequests: everything but the allowed destination
// is refused with 403, unreadable or oversized requests with 400; no dial
// happens for any of them.
func TestProxyRefusesHostileRequests(t *testing.T) {
	var dials atomic.Int32
	// The cap is far above the one connection open at a time: a slot is
	// freed after the client has its answer, so with a cap of 2 a loaded
	// machine sometimes saw the next connection refused with 503 (the cap
	// itself is TestProxyConnectionCap's).
	p := &Proxy{Allow: "registry.example:443", MaxConns: 16, Dial: func(_ context.Context, _, _ string) (net.Conn, error) {
		dials.Add(1)
		return nil, fmt.Errorf("no dial in this test")
	}}
	addr := serveProxy(t, p)
	for _, tt := range []struct {
		req  string
		code int
	}{
		{"CONNECT registry.example:444 HTTP/1.1\r\nHost: registry.example:444\r\n\r\n", 403},
		{"CONNECT 169.254.169.254:80 HTTP/1.1\r\nHost: 169.254.169.254:80\r\n\r\n", 403},
		{"CONNECT registry.example.evil:443 HTTP/1.1\r\nHost: registry.example.evil:443\r\n\r\n", 403},
		{"GET /metrics HTTP/1.1\r\nHost: registry.example:443\r\n\r\n", 403},
		{"GET https://registry.example:443/ HTTP/1.1\r\nHost: registry.example\r\n\r\n", 403}, // TLS must tunnel
		{"GET http://registry.example:443@127.0.0.1/ HTTP/1.1\r\nHost: x\r\n\r\n", 403},
		{"GET / HTTP/1.1\r\nX: " + strings.Repeat("a", 64<<10) + "\r\n\r\n", 400},
		{"\x16\x03\x01garbage\r\n\r\n", 400},
		{"CONNECT REGISTRY.example.:443 HTTP/1.1\r\nHost: x\r\n\r\n", 502}, // allowed (case, dot), dial fails here
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.WriteString(c, tt.req) }()
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%q: %v", tt.req[:min(40, len(tt.req))], err)
		}
		if resp.StatusCode != tt.code {
			t.Errorf("%q: %d, want %d", tt.req[:min(40, len(tt.req))], resp.StatusCode, tt.code)
		}
		c.Close()
	}
	if dials.Load() != 1 {
		t.Fatalf("%d dials, want 1 (the allowed CONNECT)", dials.Load())
	}
}

// TestProxyConnectionCap: with MaxConns connections open, one more is
// answered 503 at once and never read; once one closes, a new one is
// served again.
func TestProxyConnectionCap(t *testing.T) {
	p := &Proxy{Allow: "registry.example:443", MaxConns: 2, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, fmt.Errorf("no dial in this test")
	}}
	addr := serveProxy(t, p)
	status := func(c net.Conn, req string) int {
		t.Helper()
		go func() { _, _ = io.WriteString(c, req) }()
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode
	}
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// Two connections that send nothing hold both slots.
	held := []net.Conn{dial(), dial()}
	if !testkit.Poll(5*time.Second, func() bool { return len(p.slots()) == 2 }) {
		t.Fatalf("the two idle connections hold %d slots", len(p.slots()))
	}
	extra := dial()
	if st := status(extra, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); st != http.StatusServiceUnavailable {
		t.Fatalf("a third connection: %d, want 503", st)
	}
	extra.Close()
	held[0].Close()
	if !testkit.Poll(5*time.Second, func() bool { return len(p.slots()) < 2 }) {
		t.Fatalf("a closed connection kept its slot")
	}
	again := dial()
	defer again.Close()
	if st := status(again, "GET /metrics HTTP/1.1\r\nHost: registry.example:443\r\n\r\n"); st != http.StatusForbidden {
		t.Fatalf("after a slot freed: %d, want 403 (served)", st)
	}
	held[1].Close()
}

// serveProxy serves p on a loopback listener closed when the test ends,
// and returns its address.
func serveProxy(t *testing.T, p *Proxy) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() { _ = p.Serve(l) }()
	return l.Addr().String()
}

// TestProxyPermits: without Allow, the destinations Permits allows are
// dialed (the destination asked for, not a fixed one); the rest are
// refused with 403 and never dialed.
func TestProxyPermits(t *testing.T) {
	var dialed []string
	var mu sync.Mutex
	p := &Proxy{Permits: func(hp string) bool { return hp == "api.example:443" || hp == "cdn.example:8443" }, MaxConns: 16,
		Dial: func(_ context.Context, _, addr string) (net.Conn, error) {
			mu.Lock()
			dialed = append(dialed, addr)
			mu.Unlock()
			return nil, fmt.Errorf("no dial in this test")
		}}
	addr := serveProxy(t, p)
	for _, tt := range []struct {
		req  string
		code int
	}{
		{"CONNECT api.example:443 HTTP/1.1\r\nHost: api.example:443\r\n\r\n", 502},
		{"CONNECT cdn.example:8443 HTTP/1.1\r\nHost: cdn.example:8443\r\n\r\n", 502},
		{"CONNECT api.example:80 HTTP/1.1\r\nHost: api.example:80\r\n\r\n", 403},
		{"CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n", 403},
		{"CONNECT api.example HTTP/1.1\r\nHost: api.example\r\n\r\n", 403},
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.WriteString(c, tt.req) }()
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%q: %v", tt.req[:30], err)
		}
		if resp.StatusCode != tt.code {
			t.Errorf("%q: %d, want %d", tt.req[:30], resp.StatusCode, tt.code)
		}
		c.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(dialed, ",") != "api.example:443,cdn.example:8443" {
		t.Errorf("dialed %v, want exactly the two permitted destinations", dialed)
	}
}
