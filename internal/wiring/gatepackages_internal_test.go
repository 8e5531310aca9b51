package wiring

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/internal/contract"
)

// TestGatePackagesRefuseWhatTheyCannotConfine: the gateway gives a
// confined server no network or exactly its allow-list; a version whose
// egress it cannot give, whose contract it cannot read, or whose package
// it cannot run is refused with the reason, before anything is fetched.
func TestGatePackagesRefuseWhatTheyCannotConfine(t *testing.T) {
	withEgress := func(mode contract.EgressMode, allow ...string) json.RawMessage {
		c := contract.Default().Normalize(nil)
		c.Egress = contract.Egress{Mode: mode, Allow: append([]string{}, allow...)}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct {
		name     string
		contract json.RawMessage
		mode     contract.EgressMode
		want     string
	}{
		{"no contract", nil, contract.EgressDenied, ""},
		{"denied", withEgress(contract.EgressDenied), contract.EgressDenied, ""},
		{"allow-list", withEgress(contract.EgressAllowlistedExternal, "api.example.com"), contract.EgressAllowlistedExternal, ""},
		{"internal only", withEgress(contract.EgressInternalOnly), "", "egress is internal_only, a network the gateway cannot give"},
		{"brokered", withEgress(contract.EgressBrokeredGateway), "", "egress is brokered_gateway"},
		{"unreadable", json.RawMessage(`{"egress":"everywhere"}`), "", "its contract cannot be read"},
	} {
		e := discovery.Entry{Name: "io.github.acme/x", Version: "1.0.0", Contract: c.contract}
		got, err := egressOf(e)
		switch {
		case c.want == "" && (err != nil || got.Mode != c.mode):
			t.Errorf("%s: %+v %v, want egress %s", c.name, got, err, c.mode)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}

	for _, c := range []struct {
		name string
		pkgs []discovery.Package
		want string
	}{
		{"pypi only", []discovery.Package{{RegistryType: "pypi", Identifier: "x", Version: "1"}}, "neither a streamable-http remote nor an npm stdio package"},
		{"npm over http", []discovery.Package{{RegistryType: "npm", Identifier: "x", Version: "1.0.0", Transport: "streamable-http"}}, "neither"},
		{"no version", []discovery.Package{{RegistryType: "npm", Identifier: "x"}}, "names no version"},
	} {
		if _, err := npmStdioPackage(discovery.Entry{Name: "io.github.acme/x", Version: "1.0.0", Packages: c.pkgs}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}

	// An unavailable sandbox refuses every package with its reason.
	p := &GatePackages{sandboxErr: errors.New("scan sandbox unavailable: bubblewrap not found")}
	_, err := p.Start(context.Background(), discovery.Entry{Name: "io.github.acme/x", Version: "1.0.0"})
	if err == nil || !strings.Contains(err.Error(), "bubblewrap not found") || !strings.Contains(err.Error(), "--sandbox=off") {
		t.Errorf("an unavailable sandbox: %v", err)
	}
}
