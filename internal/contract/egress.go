package contract

import (
	"net"
	"net/netip"
	"strings"
)

// defaultEgressPort is the port of an allow-list entry that names none.
const defaultEgressPort = "443"

// Allows reports whether a server whose egress is e may connect to
// hostport ("host:port"). Only allowlisted_external allows anything, and
// then only what its allow-list names: a DNS name (exactly, in any case,
// with or without a final dot), "*.suffix" (any name below suffix, not
// suffix itself), an IPv4 address or CIDR block; a name or address entry
// without ":port" means port 443, a CIDR block any port.
func (e Egress) Allows(hostport string) bool {
	if e.Mode != EgressAllowlistedExternal {
		return false
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || host == "" || port == "" {
		return false
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	ip, ipErr := netip.ParseAddr(host)
	for _, entry := range e.Allow {
		if p, err := netip.ParsePrefix(entry); err == nil {
			if ipErr == nil && p.Contains(ip.Unmap()) {
				return true
			}
			continue
		}
		name, want := entry, defaultEgressPort
		if h, p, err := net.SplitHostPort(entry); err == nil {
			name, want = h, p
		}
		if port != want {
			continue
		}
		name = strings.TrimSuffix(strings.ToLower(name), ".")
		if suffix, ok := strings.CutPrefix(name, "*."); ok {
			if ipErr != nil && strings.HasSuffix(host, "."+suffix) {
				return true
			}
			continue
		}
		if host == name {
			return true
		}
	}
	return false
}

// ListedAddresses are the allow-list's address and CIDR entries: the
// only restricted (private, loopback) addresses a server may reach,
// since a name could resolve to any address.
func (e Egress) ListedAddresses() []string {
	var out []string
	for _, entry := range e.Allow {
		host := entry
		if h, _, err := net.SplitHostPort(entry); err == nil {
			host = h
		}
		if _, err := netip.ParsePrefix(host); err == nil {
			out = append(out, host)
		} else if _, err := netip.ParseAddr(host); err == nil {
			out = append(out, host)
		}
	}
	return out
}
