package scan

import "net/netip"

// restrictedRange is a block of addresses a scan does not dial unless it is
// allow-listed, with the reason shown in the error.
type restrictedRange struct {
	prefix netip.Prefix
	why    string
}

// restricted lists what is not the public internet, most specific first:
// the cloud metadata endpoints, loopback, private, shared (CGNAT),
// link-local, unspecified, multicast and reserved blocks, and IPv6
// transition prefixes that could smuggle them (checked through the IPv4
// address they carry, see embeddedIPv4).
var restricted = []restrictedRange{
	{netip.MustParsePrefix("169.254.169.254/32"), "cloud metadata"},
	{netip.MustParsePrefix("fd00:ec2::254/128"), "cloud metadata"},
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (CGNAT)"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("fc00::/7"), "unique local (private)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{netip.MustParsePrefix("2001::/32"), "Teredo"},
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	v4compat  = netip.MustParsePrefix("::/96")
)

// restriction says why ip is restricted, or "" when it is a public address.
func restriction(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	for _, r := range restricted {
		if r.prefix.Contains(ip) {
			return r.why
		}
	}
	if v4, ok := embeddedIPv4(ip); ok {
		if why := restriction(v4); why != "" {
			return why + " (embedded in " + ip.String() + ")"
		}
	}
	return ""
}

// embeddedIPv4 returns the IPv4 address carried by a NAT64, 6to4 or
// IPv4-compatible IPv6 address.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	b := ip.As16()
	switch {
	case !ip.Is6():
		return netip.Addr{}, false
	case nat64.Contains(ip), v4compat.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}
