package scan

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// readWith scans t with the allow-list entries given.
func readWith(t *testing.T, allow string, target Target) (*Snapshot, error) {
	t.Helper()
	a, err := ParseAllowList(allow)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(Limits{}, a)
	if err != nil {
		t.Fatal(err)
	}
	return r.Read(context.Background(), target)
}

func TestDialGuard(t *testing.T) {
	srv := sdkHTTP(t, sdkConfig{}, false)
	u, _ := url.Parse(srv.URL)
	byName := "http://localhost:" + u.Port()
	tests := []struct {
		name, allow, url string
		fragments        []string // empty: the scan succeeds
	}{
		{"loopback refused", "", srv.URL, []string{u.Host, "loopback", "--scan-allow-hosts or MCPREG_SCAN_ALLOW_HOSTS"}},
		{"loopback allowed by CIDR", "127.0.0.1/32", srv.URL, nil},
		{"loopback allowed by address", "127.0.0.1", srv.URL, nil},
		{"other CIDR does not allow", "10.0.0.0/8,192.168.0.0/16", srv.URL, []string{u.Host, "loopback"}},
		{"host name resolving to loopback refused", "", byName, []string{"loopback", `"localhost"`}},
		{"host name allowed by name", "localhost", byName, nil},
		{"host name allowed by name, any case", "LocalHost.", byName, nil},
		{"host name allowed by its address", "127.0.0.0/8,::1/128", byName, nil},
		{"another name does not allow", "example.com", byName, []string{"loopback"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := readWith(t, tt.allow, HTTPTarget{URL: tt.url})
			if tt.fragments == nil {
				if err != nil {
					t.Fatal(err)
				}
				checkPins(t, snap)
				return
			}
			wantErr(t, err, ErrDenied, tt.fragments...)
		})
	}
}

// Restricted addresses are refused before any packet is sent, so these
// need no network.
func TestDialGuardRefusesMetadataAndPrivate(t *testing.T) {
	tests := []struct{ url, why string }{
		{"http://169.254.169.254/latest/meta-data/", "cloud metadata"},
		{"http://[fd00:ec2::254]/", "cloud metadata"},
		{"http://10.1.2.3:8080/mcp", "private"},
		{"http://[::ffff:127.0.0.1]/mcp", "loopback"},
		{"http://[fe80::1]/mcp", "link-local"},
		{"http://100.64.0.1/mcp", "CGNAT"},
		{"http://0.0.0.0/mcp", "unspecified"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			_, err := readWith(t, "", HTTPTarget{URL: tt.url})
			wantErr(t, err, ErrDenied, tt.why)
		})
	}
}

func TestRestriction(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"8.8.8.8", ""},
		{"2606:4700:4700::1111", ""},
		{"127.0.0.53", "loopback"},
		{"::1", "loopback"},
		{"::ffff:10.0.0.1", "private"},
		{"172.31.255.255", "private"},
		{"172.32.0.0", ""},
		{"192.168.1.1", "private"},
		{"fd12::1", "unique local (private)"},
		{"169.254.169.254", "cloud metadata"},
		{"169.254.1.1", "link-local"},
		{"100.127.255.255", "shared address space (CGNAT)"},
		{"224.0.0.1", "multicast"},
		{"ff02::1", "multicast"},
		{"255.255.255.255", "reserved"},
		{"::", "unspecified"},
		{"64:ff9b::7f00:1", "loopback (embedded in 64:ff9b::7f00:1)"},
		{"64:ff9b::808:808", ""},
		{"2002:a00:1::1", "private (embedded in 2002:a00:1::1)"},
		{"fe80::1%eth0", "link-local"},
	}
	for _, tt := range tests {
		if got := restriction(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("restriction(%s) = %q; want %q", tt.addr, got, tt.want)
		}
	}
}

func TestParseAllowList(t *testing.T) {
	a, err := ParseAllowList(" 127.0.0.1/32, ::1 ,localhost,, 10.0.0.0/8,MCP.Example.COM.")
	if err != nil {
		t.Fatal(err)
	}
	for _, ip := range []string{"127.0.0.1", "::1", "10.9.9.9", "::ffff:10.0.0.1"} {
		if !a.allowsAddr(netip.MustParseAddr(ip)) {
			t.Errorf("%s not allowed", ip)
		}
	}
	if a.allowsAddr(netip.MustParseAddr("127.0.0.2")) || !a.allowsHost("mcp.example.com") || a.allowsHost("example.com") {
		t.Errorf("allow-list %s too wide or narrow", a)
	}
	for _, bad := range []string{"10.0.0.0/33", "not a host!", "a..b", "http://x"} {
		if _, err := ParseAllowList(bad); err == nil || !strings.Contains(err.Error(), "allow-list entry") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}

// A redirect to another origin is refused, even to an allowed address.
func TestHTTPRedirectToOtherOrigin(t *testing.T) {
	other := sdkHTTP(t, sdkConfig{}, false)
	srv := serve(t, http.RedirectHandler(other.URL, http.StatusTemporaryRedirect))
	_, err := readWith(t, "127.0.0.1/32", HTTPTarget{URL: srv.URL})
	wantErr(t, err, ErrDenied, "redirect", other.URL)
}

// AllowList.Dialer refuses restricted addresses unless allow-listed.
func TestAllowListDialer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, err = AllowList{}.Dialer()(context.Background(), "tcp", l.Addr().String())
	wantErr(t, err, ErrDenied, "loopback")
	allow, _ := ParseAllowList("127.0.0.1/32")
	c, err := allow.Dialer()(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatalf("allow-listed loopback: %v", err)
	}
	c.Close()
}
