package contract

import (
	"slices"
	"testing"
)

func TestEgressAllows(t *testing.T) {
	e := Egress{Mode: EgressAllowlistedExternal, Allow: []string{"api.ticketing.example.com", "*.cdn.example.com:8443", "203.0.113.7", "10.1.0.0/16"}}
	for hostport, want := range map[string]bool{
		"api.ticketing.example.com:443":      true,
		"API.Ticketing.Example.COM.:443":     true,
		"api.ticketing.example.com:80":       false, // no port: 443 only
		"evil.api.ticketing.example.com:443": false,
		"img.cdn.example.com:8443":           true,
		"a.b.cdn.example.com:8443":           true,
		"cdn.example.com:8443":               false, // the wildcard is below the suffix
		"img.cdn.example.com:443":            false,
		"evilcdn.example.com:8443":           false,
		"203.0.113.7:443":                    true,
		"203.0.113.7:22":                     false,
		"10.1.2.3:5432":                      true, // a block: any port
		"10.2.0.1:443":                       false,
		"api.ticketing.example.com":          false, // no port
		"":                                   false,
	} {
		if got := e.Allows(hostport); got != want {
			t.Errorf("Allows(%q) = %v, want %v", hostport, got, want)
		}
	}
	for _, mode := range []EgressMode{EgressDenied, EgressInternalOnly, EgressBrokeredGateway, ""} {
		if (Egress{Mode: mode, Allow: e.Allow}).Allows("api.ticketing.example.com:443") {
			t.Errorf("egress %q allowed a destination", mode)
		}
	}
	if got := e.ListedAddresses(); !slices.Equal(got, []string{"203.0.113.7", "10.1.0.0/16"}) {
		t.Errorf("ListedAddresses = %v", got)
	}
}
