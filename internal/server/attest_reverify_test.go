package server_test

import (
	"net/http"
	"testing"

	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestReverifyQuarantinesAndRelease: after the policy moves to another
// identity, re-verification quarantines the approved version with an
// audited reason; release needs a passing re-verification newer than the
// quarantine.
func TestReverifyQuarantinesAndRelease(t *testing.T) {
	for _, dialect := range storetest.Dialects(t) {
		t.Run(dialect, func(t *testing.T) {
			e := startAttest(t, dialect)
			ok(t, "first version", e.submit(t, npmServerJSON("0.1.0")))
			ok(t, "policy", e.setPolicy(t, attestServer, attestPolicy(true, releaseSAN)))
			ok(t, "submit", e.submit(t, npmServerJSON("1.0.0"),
				map[string]any{"packageIndex": 0, "bundle": e.provenance(t, releaseSAN, "1.0.0")}))
			ok(t, "approve", e.transition(t, "approve", attestServer, "1.0.0"))
			reverify := func(token string) response {
				return call(t, "POST", e.in.URL+"/v1/attestations:reverify", token, map[string]any{})
			}
			if r := reverify(e.reviewer); r.Status != http.StatusForbidden {
				t.Fatalf("reviewer reverify: %d %s", r.Status, r.Body)
			}
			rep := ok(t, "reverify unchanged", reverify(e.admin)).json(t)
			if rep["passed"] != float64(1) || len(rep["quarantined"].([]any)) != 0 {
				t.Fatalf("reverify with an unchanged policy: %v", rep)
			}

			ok(t, "policy to another identity", e.setPolicy(t, attestServer, attestPolicy(true, otherSAN)))
			rep = ok(t, "reverify", reverify(e.admin)).json(t)
			if rep["failed"] != float64(1) || len(rep["quarantined"].([]any)) != 1 || rep["quarantined"].([]any)[0] != attestServer+"@1.0.0" {
				t.Fatalf("reverify after policy change: %v", rep)
			}
			v := call(t, "GET", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.0.0", e.reviewer, nil).json(t)
			if v["state"] != "quarantined" {
				t.Fatalf("state after failed reverify: %v", v["state"])
			}
			ev := call(t, "GET", e.in.URL+"/v1/audit/events?action=version.quarantine", e.reviewer, nil).json(t)["events"].([]any)
			if len(ev) != 1 || !contains(ev[0].(map[string]any)["reason"].(string), "package 0 (npm @acme/signed-mcp 1.0.0)") ||
				!contains(ev[0].(map[string]any)["reason"].(string), otherSAN) {
				t.Fatalf("quarantine audit: %v", ev)
			}
			refused(t, "release under the new policy", e.transition(t, "release", attestServer, "1.0.0"), http.StatusConflict,
				"re-verification", "package 0 (npm @acme/signed-mcp 1.0.0)")

			// Back to the original identity: still no passing re-verification since the quarantine.
			ok(t, "policy back", e.setPolicy(t, attestServer, attestPolicy(true, releaseSAN)))
			refused(t, "release before reverify", e.transition(t, "release", attestServer, "1.0.0"), http.StatusConflict,
				"re-verification", "another policy")
			rep = ok(t, "reverify passes", reverify(e.admin)).json(t)
			if rep["passed"] != float64(1) || len(rep["quarantined"].([]any)) != 0 {
				t.Fatalf("passing reverify: %v", rep)
			}
			v = call(t, "GET", e.in.URL+"/v1/servers/"+attestServer+"/versions/1.0.0", e.reviewer, nil).json(t)
			if v["state"] != "quarantined" {
				t.Fatalf("a passing reverify released on its own: %v", v["state"])
			}
			ok(t, "release", e.transition(t, "release", attestServer, "1.0.0"))

			// A manual quarantine is released only while the attestations
			// still satisfy the policy in force (checked at release).
			ok(t, "manual quarantine", e.transition(t, "quarantine", attestServer, "1.0.0"))
			ok(t, "policy to another identity again", e.setPolicy(t, attestServer, attestPolicy(true, otherSAN)))
			refused(t, "release after manual quarantine", e.transition(t, "release", attestServer, "1.0.0"), http.StatusConflict,
				"cannot release", "package 0 (npm @acme/signed-mcp 1.0.0)", releaseSAN)
		})
	}
}
