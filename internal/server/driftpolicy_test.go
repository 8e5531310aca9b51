package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/wiring"
)

const warnOnDescriptions = `{"classes":{
 "description_changed":{"severity":"medium","action":"warn"},
 "schema_changed":{"severity":"high","action":"quarantine"},
 "annotations_changed":{"severity":"medium","action":"warn"},
 "title_changed":{"severity":"low","action":"warn"},
 "tool_added":{"severity":"high","action":"quarantine"},
 "tool_removed":{"severity":"medium","action":"warn"},
 "instructions_changed":{"severity":"high","action":"quarantine"},
 "server_info_changed":{"severity":"info","action":"warn"}},
 "riskierAnnotations":{"severity":"high","action":"quarantine"}}`

// TestConfiguredDriftPolicy: an operator's policy decides; here a
// description change only warns.
func TestConfiguredDriftPolicy(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		path := filepath.Join(t.TempDir(), "drift.json")
		if err := os.WriteFile(path, []byte(warnOnDescriptions), 0o600); err != nil {
			t.Fatal(err)
		}
		fx := newFixture(t)
		in := servertest.Start(t, dialect, func(c *config.Config) { c.DriftPolicy = path })
		// The file predates tool_renamed: it starts, and says that class
		// fails closed.
		if logs := in.Logs.String(); !strings.Contains(logs, "leaves drift classes out") || !strings.Contains(logs, "tool_renamed") {
			t.Fatalf("no warning about the class the policy leaves out:\n%s", logs)
		}
		owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
		alice := in.Token(t, "alice", registry.RoleReviewer)
		base := in.URL + "/v1/servers/io.github.acme/weather/versions/1.0.0"
		if r := call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": liveServerJSON("io.github.acme/weather", fx.url), "live": true}); r.Status != 200 {
			t.Fatalf("live submit: %d %s", r.Status, r.Body)
		}
		call(t, "POST", base+"/approve", alice, map[string]any{"reason": "ok"})
		fx.setDescription("Get the weather forecast for one city.")
		res := call(t, "POST", base+"/scan", alice, map[string]any{}).json(t)
		ev := res["driftEvent"].(map[string]any)
		if res["state"] != "approved" || ev["status"] != string(states.DriftWarned) || ev["changes"].([]any)[0].(map[string]any)["severity"] != "medium" {
			t.Fatalf("configured policy not applied: %v", res)
		}
	})
}

func TestDriftPolicyFileIsValidated(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"unknown class":  strings.Replace(warnOnDescriptions, `"title_changed"`, `"title_renamed"`, 1),
		"unknown action": strings.Replace(warnOnDescriptions, `"action":"warn"}`, `"action":"ignore"}`, 1),
		"unknown field":  strings.Replace(warnOnDescriptions, `{"classes"`, `{"extra":1,"classes"`, 1),
		"not JSON":       "{",
	}
	for name, doc := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := config.DefaultConfig()
		cfg.DriftPolicy = path
		if _, err := wiring.ScanningFrom(cfg); err == nil || !strings.Contains(err.Error(), "--drift-policy") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
