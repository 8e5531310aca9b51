package scan

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// AllowList names restricted addresses (loopback, private, link-local...)
// that HTTP scans may dial anyway: CIDR blocks, single addresses and host
// names.
//
// A CIDR entry allows the addresses it contains, whatever name led to them.
// A host name entry allows every address that name resolves to at dial
// time: the dialer sees the name before resolving it, so the entry trusts
// the DNS answer for that name (and only that name). The zero AllowList
// allows nothing.
type AllowList struct {
	prefixes []netip.Prefix
	hosts    map[string]bool
}

// ParseAllowList reads a comma-separated list such as
// "127.0.0.1/32,10.1.0.0/16,::1,localhost". Empty entries are ignored.
func ParseAllowList(s string) (AllowList, error) {
	var a AllowList
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			if err := a.add(e); err != nil {
				return AllowList{}, err
			}
		}
	}
	return a, nil
}

func (a *AllowList) add(e string) error {
	if p, err := netip.ParsePrefix(e); err == nil {
		a.prefixes = append(a.prefixes, p.Masked())
		return nil
	}
	if ip, err := netip.ParseAddr(e); err == nil {
		a.prefixes = append(a.prefixes, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
		return nil
	}
	host := normalHost(e)
	if !validHostName(host) {
		return fmt.Errorf("scan: allow-list entry %q is neither a CIDR block, an address nor a host name", e)
	}
	if a.hosts == nil {
		a.hosts = map[string]bool{}
	}
	a.hosts[host] = true
	return nil
}

// String lists the entries, comma-separated.
func (a AllowList) String() string {
	var es []string
	for _, p := range a.prefixes {
		es = append(es, p.String())
	}
	for h := range a.hosts {
		es = append(es, h)
	}
	return strings.Join(es, ",")
}

// allowsHost reports whether the host name is listed.
func (a AllowList) allowsHost(host string) bool { return a.hosts[normalHost(host)] }

// allowsAddr reports whether a listed block contains ip.
func (a AllowList) allowsAddr(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	for _, p := range a.prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

func normalHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

func validHostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return false
		}
	}
	return true
}

// Dialer returns a dial function that refuses the restricted addresses a
// does not allow, as HTTP scans do (for the sandbox's npm proxy).
func (a AllowList) Dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		g := &dialGuard{allow: a, trip: &tripwire{}}
		return g.DialContext(ctx, network, addr)
	}
}

// dialGuard dials for HTTP scans and refuses restricted addresses that are
// not allow-listed. The check runs in net.Dialer.Control, on the address
// actually being connected to after resolution, so a name that resolves to
// a public address when checked and a private one when dialed (DNS
// rebinding) cannot get through.
type dialGuard struct {
	allow AllowList
	trip  *tripwire
}

// DialContext dials addr ("host:port").
func (g *dialGuard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var denied tripwire // the first refusal; dials of IPv4 and IPv6 race
	d := net.Dialer{Timeout: 30 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		if err := g.check(host, address); err != nil {
			return denied.trip(err)
		}
		return nil
	}}
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil && denied.Err() != nil && errors.Is(err, ErrDenied) {
		return nil, g.trip.trip(denied.Err())
	}
	return conn, err
}

// check decides about one resolved address of host.
func (g *dialGuard) check(host, address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s: not an IP address and port", ErrDenied, address)
	}
	ip := ap.Addr()
	if g.allow.allowsHost(host) || g.allow.allowsAddr(ip) {
		return nil
	}
	if why := restriction(ip); why != "" {
		return fmt.Errorf("%w: %s is %s (dialing %q); add it to the scan allow-list to permit it (mcpregd: --scan-allow-hosts or MCPREG_SCAN_ALLOW_HOSTS)",
			ErrDenied, address, why, host)
	}
	return nil
}
