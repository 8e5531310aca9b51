package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/buildinfo"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
)

const (
	diffTools1 = `{"tools":[
 {"name":"forecast","description":"Forecast for a city.","inputSchema":{"type":"object","properties":{"days":{"type":"integer","maximum":7}}}},
 {"name":"alerts","description":"Weather alerts.","inputSchema":{"type":"object"}}]}`
	diffTools2 = `{"tools":[
 {"name":"forecast","description":"Forecast for a city.","inputSchema":{"type":"object","properties":{"days":{"type":"integer","maximum":14}}}},
 {"name":"alerts","description":"Severe weather alerts.","inputSchema":{"type":"object"}},
 {"name":"radar","description":"Radar images.","inputSchema":{"type":"object"}}]}`
)

// TestVersionsDiff: the owner sees in CI what the reviewer will see: one
// description changed (as a word diff), a schema maximum raised (by JSON
// pointer), one tool added, in a table and as the API's JSON.
func TestVersionsDiff(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	alice := in.Token(t, "alice", registry.RoleReviewer)
	dir := t.TempDir()
	sj1 := writeFile(t, dir, "s1.json", []byte(e2eServerJSON))
	sj2 := writeFile(t, dir, "s2.json", []byte(strings.Replace(e2eServerJSON, `"1.0.0"`, `"1.1.0"`, 1)))
	t1, t2 := writeFile(t, dir, "t1.json", []byte(diffTools1)), writeFile(t, dir, "t2.json", []byte(diffTools2))
	if out, err := runCLI(t, in.URL, owner, "submit", "--server-json", sj1, "--tools", t1); err != nil {
		t.Fatalf("submit 1.0.0: %v\n%s", err, out)
	}
	out, err := runCLI(t, in.URL, owner, "versions", "diff", "io.github.acme/weather", "-", "1.0.0")
	if err != nil || !strings.Contains(out, "io.github.acme/weather@1.0.0: first version") {
		t.Fatalf("diff of the first version: %v\n%s", err, out)
	}
	if out, err := runCLI(t, in.URL, alice, "approve", "io.github.acme/weather", "1.0.0", "--reason", "ok"); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	if out, err := runCLI(t, in.URL, owner, "submit", "--server-json", sj2, "--tools", t2); err != nil {
		t.Fatalf("submit 1.1.0: %v\n%s", err, out)
	}
	out, err = runCLI(t, in.URL, owner, "versions", "diff", "io.github.acme/weather", "1.0.0", "1.1.0")
	if err != nil {
		t.Fatalf("versions diff: %v\n%s", err, out)
	}
	for _, want := range []string{
		"io.github.acme/weather: 1.0.0 → 1.1.0 (base: chosen)",
		"Summary: 2 tools changed, 1 added; ",
		"Tool alerts: changed", "[-Weather-]{+Severe weather+} alerts.",
		"Tool forecast: changed", "/properties/days/maximum", "7 → 14",
		"Tool radar: added",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("versions diff lacks %q:\n%s", want, out)
		}
	}
	out, err = runCLI(t, in.URL, owner, "versions", "diff", "io.github.acme/weather", "-", "1.1.0", "--output", "json")
	if err != nil {
		t.Fatalf("versions diff --output json: %v\n%s", err, out)
	}
	var c struct {
		Base, BaseSource string
		Summary          struct{ Text string }
		Tools            []struct{ Name, Status string }
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	if c.Base != "1.0.0" || c.BaseSource != "default" || !strings.HasPrefix(c.Summary.Text, "2 tools changed, 1 added; ") || len(c.Tools) != 3 {
		t.Fatalf("JSON comparison: %+v", c)
	}
	if out, err := runCLI(t, in.URL, owner, "versions", "diff", "io.github.acme/weather", "a/b", "1.1.0"); err == nil || !strings.Contains(out+err.Error(), `base "a/b"`) {
		t.Fatalf("a base with a slash: %v\n%s", err, out)
	}
}

// TestVersionFlag: --version prints the version /openapi.json carries.
func TestVersionFlag(t *testing.T) {
	out, err := runCLI(t, "", "", "--version")
	if err != nil || strings.TrimSpace(out) != "mcpreg version "+buildinfo.Version() {
		t.Fatalf("--version: %v %q", err, out)
	}
}
