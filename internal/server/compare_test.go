package server_test

import (
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
)

// TestCompareOverREST: GET .../versions/{v}/compare answers the comparison
// to readers of the namespace, with the default base or a chosen one, and
// refuses hosts, other namespaces, unknown versions and the version itself
// as base with messages naming what was wrong.
func TestCompareOverREST(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	alice := in.Token(t, "alice", registry.RoleReviewer)
	other := in.Token(t, "other-ci", registry.RoleOwner, "io.github.other")
	host := in.HostToken(t, "fleet")
	ok(t, "submit 1.0.0", call(t, "POST", in.URL+"/v1/versions", owner, submitBody("io.github.acme/weather", "1.0.0", toolsJSON)))
	base := in.URL + "/v1/servers/io.github.acme/weather/versions/"
	first := ok(t, "compare first", call(t, "GET", base+"1.0.0/compare", owner, nil)).json(t)
	if first["firstVersion"] != true || first["baseSource"] != "none" {
		t.Fatalf("first version: %v", first)
	}
	ok(t, "approve", call(t, "POST", base+"1.0.0/approve", alice, map[string]any{"reason": "ok"}))
	changed := strings.Replace(toolsJSON, "Get the forecast for a city.", "Get the forecast for any city.", 1)
	ok(t, "submit 1.1.0", call(t, "POST", in.URL+"/v1/versions", owner, submitBody("io.github.acme/weather", "1.1.0", changed)))

	for _, tc := range []struct{ token, query, base, source string }{
		{owner, "", "1.0.0", "default"},
		{alice, "?base=1.0.0", "1.0.0", "chosen"},
	} {
		c := ok(t, "compare", call(t, "GET", base+"1.1.0/compare"+tc.query, tc.token, nil)).json(t)
		sum, _ := c["summary"].(map[string]any)
		if c["base"] != tc.base || c["baseSource"] != tc.source || sum["text"] != "1 tool changed; no new findings" {
			t.Fatalf("compare%s: %v", tc.query, c)
		}
	}
	for _, tc := range []struct {
		token, path string
		status      int
		says        string
	}{
		{host, "1.1.0/compare", 403, "host"},
		{other, "1.1.0/compare", 403, "may not read namespace"},
		{owner, "9.9.9/compare", 404, "io.github.acme/weather@9.9.9"},
		{owner, "1.1.0/compare?base=9.9.9", 404, "base: "},
		{owner, "1.1.0/compare?base=1.1.0", 400, "is the version compared"},
		{"", "1.1.0/compare", 401, ""},
	} {
		r := call(t, "GET", base+tc.path, tc.token, nil)
		if r.Status != tc.status || !strings.Contains(string(r.Body), tc.says) {
			t.Errorf("GET %s: %d %s, want %d saying %q", tc.path, r.Status, r.Body, tc.status, tc.says)
		}
	}
}
