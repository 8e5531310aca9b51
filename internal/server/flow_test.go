package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/pin"
)

func TestSubmitApproveFlow(t *testing.T) {
	for _, dialect := range storetest.Dialects(t) {
		t.Run(dialect, func(t *testing.T) {
			in := servertest.Start(t, dialect)
			owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
			alice := in.Token(t, "alice", registry.RoleReviewer)
			admin := in.Token(t, "root", registry.RoleAdmin)

			r := call(t, "POST", in.URL+"/v1/versions", owner, submitBody("io.github.acme/weather", "1.0.0", toolsJSON))
			if r.Status != http.StatusOK {
				t.Fatalf("submit: %d %s", r.Status, r.Body)
			}
			got := r.json(t)
			if got["state"] != "pending_review" {
				t.Fatalf("state after submit = %v", got["state"])
			}
			want := pinsOf(t, toolsJSON)
			pins := got["pins"].(map[string]any)
			if pins["toolDefinitionHash"] != want.ToolDefinitionHash || pins["schemaHash"] != want.SchemaHash ||
				pins["instructionsHash"] != want.InstructionsHash {
				t.Fatalf("service pins %v differ from pin.Compute %+v", pins, want)
			}

			base := in.URL + "/v1/servers/io.github.acme/weather/versions/1.0.0"
			// The submitter's role cannot approve at all; an admin who submitted cannot approve its own.
			if r := call(t, "POST", base+"/approve", owner, map[string]string{"reason": "lgtm"}); r.Status != http.StatusForbidden {
				t.Fatalf("owner approve: %d %s", r.Status, r.Body)
			}
			r = call(t, "POST", in.URL+"/v1/versions", admin, submitBody("io.github.acme/weather", "1.1.0", toolsJSON))
			if r.Status != http.StatusOK {
				t.Fatalf("admin submit: %d %s", r.Status, r.Body)
			}
			self := call(t, "POST", in.URL+"/v1/servers/io.github.acme/weather/versions/1.1.0/approve", admin, map[string]string{"reason": "mine"})
			if self.Status != http.StatusForbidden || !strings.Contains(self.message(t), "four-eyes") {
				t.Fatalf("self-approval: %d %s", self.Status, self.Body)
			}

			r = call(t, "POST", base+"/approve", alice, map[string]string{"reason": "reviewed descriptions"})
			if r.Status != http.StatusOK {
				t.Fatalf("approve: %d %s", r.Status, r.Body)
			}
			r = call(t, "GET", base, alice, nil)
			v := r.json(t)
			if v["state"] != "approved" || v["pins"].(map[string]any)["toolDefinitionHash"] != want.ToolDefinitionHash {
				t.Fatalf("get after approve: %s", r.Body)
			}
			decisions := v["decisions"].([]any)
			if len(decisions) != 1 || decisions[0].(map[string]any)["actor"] != "alice" {
				t.Fatalf("decisions: %v", decisions)
			}

			ev := call(t, "GET", in.URL+"/v1/audit/events?subject=io.github.acme/weather@1.0.0", alice, nil).json(t)["events"].([]any)
			if len(ev) != 2 || ev[0].(map[string]any)["action"] != "version.submit" || ev[1].(map[string]any)["action"] != "version.approve" {
				t.Fatalf("audit events: %v", ev)
			}
			if ev[1].(map[string]any)["prevHash"] == "" {
				t.Fatal("audit event without prevHash")
			}
			rep := call(t, "GET", in.URL+"/v1/audit/verify", alice, nil).json(t)
			if rep["ok"] != true {
				t.Fatalf("audit verify: %v", rep)
			}
		})
	}
}

func pinsOf(t *testing.T, tools string) pin.Pins {
	t.Helper()
	l, err := pin.ParseToolsList([]byte(tools), pin.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	p, err := pin.Compute(l)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
