package web

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

// TestRemoteHost: X-Forwarded-For is believed only from trusted proxies,
// and only up to the first hop that is not one.
func TestRemoteHost(t *testing.T) {
	a := &app{opt: Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	for _, c := range []struct{ peer, xff, want string }{
		{"203.0.113.9:5000", "", "203.0.113.9"},
		{"203.0.113.9:5000", "198.51.100.1", "203.0.113.9"},         // untrusted peer: header ignored
		{"10.1.2.3:5000", "198.51.100.1", "198.51.100.1"},           // trusted proxy
		{"10.1.2.3:5000", "1.1.1.1, 198.51.100.1", "198.51.100.1"},  // the client cannot push another address past the proxy
		{"10.1.2.3:5000", "198.51.100.1, 10.9.9.9", "198.51.100.1"}, // two trusted hops
		{"10.1.2.3:5000", "", "10.1.2.3"},
		{"10.1.2.3:5000", "not-an-ip", "not-an-ip"},
	} {
		r := httptest.NewRequest("POST", "/signin", nil)
		r.RemoteAddr = c.peer
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := a.remoteHost(r); got != c.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %q, want %q", c.peer, c.xff, got, c.want)
		}
	}
}
