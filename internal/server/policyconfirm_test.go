package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// twoSigners is the required policy accepting releaseSAN and otherSAN.
func twoSigners() map[string]any {
	pol := attestPolicy(true, releaseSAN)
	pol["identities"] = append(pol["identities"].([]any), map[string]any{"issuer": acmeIssuer, "san": otherSAN})
	return pol
}

// TestPolicyWeakeningNeedsASecondReviewer: a reviewer who adds a signer
// to a required policy cannot then approve a version signed by it alone:
// the weakening is pending (shown by GET .../policy) until another
// reviewer confirms it, quoting its digest; narrowing applies at once;
// a new proposal replaces the pending one; both steps are audited.
func TestPolicyWeakeningNeedsASecondReviewer(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		e := startAttest(t, dialect)
		bob := e.in.Token(t, "bob", registry.RoleReviewer)
		policyURL := e.in.URL + "/v1/servers/" + attestServer + "/policy"
		ok(t, "first version", e.submit(t, npmServerJSON("0.1.0")))
		ok(t, "policy", e.setPolicy(t, attestServer, attestPolicy(true, releaseSAN)))

		// rita adds the intruder's identity and approves its bundle alone.
		ok(t, "propose a second signer", e.proposePolicy(t, e.reviewer, attestServer, twoSigners()))
		ok(t, "submit signed by the new signer", e.submit(t, npmServerJSON("1.0.0"),
			map[string]any{"packageIndex": 0, "bundle": e.provenance(t, otherSAN, "1.0.0")}))
		refused(t, "approve under a pending weakening", e.transition(t, "approve", attestServer, "1.0.0"), http.StatusConflict,
			"cannot approve", otherSAN)

		got := ok(t, "get policy", call(t, "GET", policyURL, bob, nil)).json(t)
		pending, _ := got["pending"].(map[string]any)
		if pending == nil || pending["proposedBy"] != "rita" || pending["proposedAt"] == nil ||
			!strings.Contains(strings.Join(anyStrings(pending["weakenings"]), " "), "attestation.identities[1] added or changed") {
			t.Fatalf("GET policy does not show the pending weakening: %v", got)
		}
		if ids := got["attestation"].(map[string]any)["identities"].([]any); len(ids) != 1 {
			t.Fatalf("the weakening is in force before confirmation: %v", ids)
		}
		digest := pending["digest"].(string)
		refused(t, "proposer confirms", e.confirmPolicy(t, e.reviewer, attestServer, digest), http.StatusForbidden, "four-eyes")
		refused(t, "owner confirms", e.confirmPolicy(t, e.owner, attestServer, digest), http.StatusForbidden)
		refused(t, "confirm another digest", e.confirmPolicy(t, bob, attestServer, "sha256:00"), http.StatusConflict, digest)
		refused(t, "confirm without digest", e.confirmPolicy(t, bob, attestServer, ""), http.StatusBadRequest, "digest is required")

		// A new proposal replaces the pending one: the old digest no longer confirms.
		replaced := ok(t, "propose again", e.proposePolicy(t, e.reviewer, attestServer, withRef(twoSigners()))).json(t)["pending"].(map[string]any)
		if replaced["digest"] == digest {
			t.Fatalf("a new proposal kept the old digest")
		}
		refused(t, "confirm the replaced proposal", e.confirmPolicy(t, bob, attestServer, digest), http.StatusConflict, "newer proposal")
		ok(t, "propose the two signers again", e.proposePolicy(t, e.reviewer, attestServer, twoSigners()))
		digest = ok(t, "get", call(t, "GET", policyURL, bob, nil)).json(t)["pending"].(map[string]any)["digest"].(string)
		confirmed := ok(t, "bob confirms", e.confirmPolicy(t, bob, attestServer, digest)).json(t)
		if confirmed["pending"] != nil || len(confirmed["attestation"].(map[string]any)["identities"].([]any)) != 2 || confirmed["updatedBy"] != "bob" {
			t.Fatalf("after confirmation: %v", confirmed)
		}
		ok(t, "approve after confirmation", e.transition(t, "approve", attestServer, "1.0.0"))

		// Removing one of two signers narrows: in force at once.
		narrowed := ok(t, "remove a signer", e.proposePolicy(t, e.reviewer, attestServer, attestPolicy(true, releaseSAN))).json(t)
		if narrowed["pending"] != nil || len(narrowed["attestation"].(map[string]any)["identities"].([]any)) != 1 {
			t.Fatalf("a narrowing did not apply at once: %v", narrowed)
		}
		audit := call(t, "GET", e.in.URL+"/v1/audit/events?subject="+attestServer, e.reviewer, nil).json(t)["events"].([]any)
		var actions []string
		for _, ev := range audit {
			if a := ev.(map[string]any)["action"].(string); strings.HasPrefix(a, "policy.") {
				actions = append(actions, a+" by "+ev.(map[string]any)["actor"].(string))
			}
		}
		want := "policy.propose by rita, policy.confirm by root, policy.propose by rita, policy.propose by rita, policy.propose by rita, policy.confirm by bob, policy.update by rita"
		if strings.Join(actions, ", ") != want {
			t.Fatalf("policy audit:\n got %s\nwant %s", strings.Join(actions, ", "), want)
		}
	})
}

func withRef(pol map[string]any) map[string]any {
	pol["sourceRepository"] = "https://github.com/acme/signed"
	pol["identities"] = pol["identities"].([]any)[1:]
	return pol
}

func anyStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}
