package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// TestProxyRefusesHostileRequests: everything but the allowed destination
// is refused with 403, unreadable or oversized requests with 400, and
// connections beyond the cap with 503; no dial happens for any of them.
func TestProxyRefusesHostileRequests(t *testing.T) {
	var dials atomic.Int32
	p := &Proxy{Allow: "registry.example:443", MaxConns: 2, Dial: func(_ context.Context, _, _ string) (net.Conn, error) {
		dials.Add(1)
		return nil, fmt.Errorf("no dial in this test")
	}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { _ = p.Serve(l) }()
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
		c, err := net.Dial("tcp", l.Addr().String())
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
