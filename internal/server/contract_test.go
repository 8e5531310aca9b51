package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

const ticketTools = `{"tools":[
 {"name":"search_tickets","description":"Search tickets.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},
 {"name":"close_ticket","description":"Close a ticket.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true}}]}`

const contractV1 = `contractVersion: mcpreg.contract/v1
owner: support-team
auth: {mode: delegated_oauth, tokenAudience: "https://tickets.example.com/mcp", scopes: [ticket.read], tokenTtl: 15m}
isolation: remote_managed
egress: {mode: internal_only}
tools:
  - {name: search_tickets, riskTier: read, approval: none, timeout: 5s}
  - {name: close_ticket, riskTier: write, approval: always, timeout: 10s, idempotency: requires_key}
`

// contractV11 adds a scope and declares close_ticket a read tool although
// its annotations say it is destructive.
var contractV11 = strings.NewReplacer("scopes: [ticket.read]", "scopes: [ticket.read, ticket.admin]",
	"{name: close_ticket, riskTier: write, approval: always, timeout: 10s, idempotency: requires_key}",
	"{name: close_ticket, riskTier: read, approval: always, timeout: 10s, idempotency: idempotent}").Replace(contractV1)

// ticketsWithContract submits version of io.github.acme/tickets with
// ticketTools and contract.
func ticketsWithContract(version, contract string) map[string]any {
	b := submitBody("io.github.acme/tickets", version, ticketTools)
	b["contract"] = contract
	return b
}

func findings(t *testing.T, v map[string]any) (kinds []string, widenings []string) {
	t.Helper()
	fs, _ := v["findings"].([]any)
	for _, f := range fs {
		m := f.(map[string]any)
		kinds = append(kinds, m["kind"].(string))
		if id := m["wideningId"].(string); id != "" {
			widenings = append(widenings, id)
		}
	}
	return kinds, widenings
}

// TestContractWideningNeedsAcknowledgement is issue 3's acceptance scenario.
func TestContractWideningNeedsAcknowledgement(t *testing.T) {
	for _, dialect := range storetest.Dialects(t) {
		t.Run(dialect, func(t *testing.T) {
			in := servertest.Start(t, dialect)
			owner := in.Token(t, "support-ci", registry.RoleOwner, "io.github.acme")
			alice := in.Token(t, "alice", registry.RoleReviewer)
			base := in.URL + "/v1/servers/io.github.acme/tickets/versions/"
			r := call(t, "POST", in.URL+"/v1/versions", owner, ticketsWithContract("1.0.0", contractV1))
			if r.Status != 200 {
				t.Fatalf("submit 1.0.0: %d %s", r.Status, r.Body)
			}
			v1 := r.json(t)
			if v1["contractSource"] != "submitted" || !strings.HasPrefix(v1["pins"].(map[string]any)["contractHash"].(string), "sha256:") {
				t.Fatalf("contract not pinned: %s", r.Body)
			}
			if _, ws := findings(t, v1); len(ws) != 0 {
				t.Fatalf("first version has widenings: %v", ws)
			}
			if r := call(t, "POST", base+"1.0.0/approve", alice, map[string]any{"reason": "ok"}); r.Status != 200 {
				t.Fatalf("approve 1.0.0: %d %s", r.Status, r.Body)
			}

			r = call(t, "POST", in.URL+"/v1/versions", owner, ticketsWithContract("1.1.0", contractV11))
			if r.Status != 200 {
				t.Fatalf("submit 1.1.0: %d %s", r.Status, r.Body)
			}
			kinds, ws := findings(t, r.json(t))
			joined := strings.Join(kinds, " ")
			for _, want := range []string{"contract.annotation_contradicts_tier", "scope_added", "tier_lowered"} {
				if !strings.Contains(joined, want) {
					t.Errorf("review lacks %s: %v", want, kinds)
				}
			}
			if len(ws) < 2 {
				t.Fatalf("widenings = %v, want the added scope and the lowered tier", ws)
			}
			r = call(t, "POST", base+"1.1.0/approve", alice, map[string]any{"reason": "ok"})
			if r.Status != http.StatusConflict || !strings.Contains(r.message(t), ws[0]) {
				t.Fatalf("approve without acknowledgement: %d %s", r.Status, r.Body)
			}
			r = call(t, "POST", base+"1.1.0/approve", alice, map[string]any{"reason": "ok", "acknowledgedWidenings": ws[:1]})
			if r.Status != http.StatusConflict {
				t.Fatalf("approve acknowledging only some: %d %s", r.Status, r.Body)
			}
			r = call(t, "POST", base+"1.1.0/approve", alice, map[string]any{"reason": "scope needed for admin flow", "acknowledgedWidenings": ws})
			if r.Status != 200 || r.json(t)["state"] != "approved" {
				t.Fatalf("approve with acknowledgement: %d %s", r.Status, r.Body)
			}
			ev := call(t, "GET", in.URL+"/v1/audit/events?subject=io.github.acme/tickets@1.1.0&action=version.approve", alice, nil).json(t)["events"].([]any)
			details := ev[0].(map[string]any)["details"].(string)
			for _, id := range ws {
				if !strings.Contains(details, id) {
					t.Fatalf("audit event does not record %s: %q", id, details)
				}
			}

			// Release re-approves through the same gate: the widenings are
			// acknowledged again.
			if r := call(t, "POST", base+"1.1.0/quarantine", alice, map[string]any{"reason": "check"}); r.Status != 200 {
				t.Fatalf("quarantine 1.1.0: %d %s", r.Status, r.Body)
			}
			r = call(t, "POST", base+"1.1.0/release", alice, map[string]any{"reason": "ok"})
			if r.Status != http.StatusConflict || !strings.Contains(r.message(t), "cannot release") || !strings.Contains(r.message(t), ws[0]) {
				t.Fatalf("release without acknowledgement: %d %s", r.Status, r.Body)
			}
			r = call(t, "POST", base+"1.1.0/release", alice, map[string]any{"reason": "still needed", "acknowledgedWidenings": ws})
			if r.Status != 200 || r.json(t)["state"] != "approved" {
				t.Fatalf("release with acknowledgement: %d %s", r.Status, r.Body)
			}
		})
	}
}

func TestContractBadInputAndPolicy(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect, func(c *config.Config) { c.MaxBodyBytes = 1 << 20 })
		owner := in.Token(t, "support-ci", registry.RoleOwner, "io.github.acme")
		alice := in.Token(t, "alice", registry.RoleReviewer)
		if r := call(t, "POST", in.URL+"/v1/versions", owner, submitBody("io.github.acme/tickets", "0.9.0", ticketTools)); r.Status != 200 {
			t.Fatalf("seed: %d %s", r.Status, r.Body)
		} else if v := r.json(t); v["contractSource"] != "default" || !strings.Contains(v["contract"].(string), "high_risk_execution") {
			t.Fatalf("default contract: %s", r.Body)
		}
		before := counts(t, in.Store)
		dup := strings.Replace(contractV1, "tools:\n", "tools:\n  - {name: close_ticket, riskTier: write}\n", 1)
		cases := []struct {
			name, contract string
			status         int
			says           []string
		}{
			{"schema violations", "contractVersion: mcpreg.contract/v1\nowner: 5\nauth: {mode: telepathy}\nextra: 1\n", 400, []string{"/auth/mode", "/extra", "/isolation"}},
			{"unknown tier", strings.Replace(contractV1, "riskTier: read", "riskTier: harmless", 1), 400, []string{"/tools/0/riskTier"}},
			{"duplicate tool entry", dup, 400, []string{"close_ticket"}},
			{"ttl does not parse", strings.Replace(contractV1, "tokenTtl: 15m", "tokenTtl: soon", 1), 400, []string{"/auth/tokenTtl"}},
			{"over the size cap", contractV1 + "# " + strings.Repeat("x", 70<<10) + "\n", 413, []string{"contract"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := call(t, "POST", in.URL+"/v1/versions", owner, ticketsWithContract("1.0.0", c.contract))
				if r.Status != c.status {
					t.Fatalf("status %d, want %d: %s", r.Status, c.status, r.Body)
				}
				for _, s := range c.says {
					if !strings.Contains(r.message(t), s) {
						t.Errorf("message %q does not name %q", r.message(t), s)
					}
				}
			})
		}
		if after := counts(t, in.Store); after != before {
			t.Fatalf("bad contracts changed stored data: %v -> %v", before, after)
		}
		if r := call(t, "PUT", in.URL+"/v1/servers/io.github.acme/tickets/policy", owner, map[string]any{"policy": map[string]any{"requireContract": false}, "reason": "x"}); r.Status != 403 {
			t.Fatalf("owner changed the policy: %d", r.Status)
		}
		r := call(t, "PUT", in.URL+"/v1/servers/io.github.acme/tickets/policy", alice, map[string]any{"policy": map[string]any{"requireContract": true}, "reason": "tickets touch customer data"})
		if r.Status != 200 || r.json(t)["requireContract"] != true {
			t.Fatalf("set policy: %d %s", r.Status, r.Body)
		}
		r = call(t, "POST", in.URL+"/v1/versions", owner, submitBody("io.github.acme/tickets", "1.0.0", ticketTools))
		if r.Status != http.StatusConflict || !strings.Contains(r.message(t), "requires a capability contract") {
			t.Fatalf("submission without contract under policy: %d %s", r.Status, r.Body)
		}
		if r := call(t, "POST", in.URL+"/v1/versions", owner, ticketsWithContract("1.0.0", contractV1)); r.Status != 200 {
			t.Fatalf("submission with contract under policy: %d %s", r.Status, r.Body)
		}
		ev := call(t, "GET", in.URL+"/v1/audit/events?action=policy.update", alice, nil).json(t)["events"].([]any)
		if len(ev) != 1 || ev[0].(map[string]any)["after"] != "requireContract=true" {
			t.Fatalf("policy change not audited: %v", ev)
		}
	})
}

// TestContractMaxTokenTTLFromConfig: --contract-max-token-ttl reaches the
// service the test server runs, as it does under `mcpregd serve`.
func TestContractMaxTokenTTLFromConfig(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite, func(c *config.Config) { c.ContractMaxTokenTTL = 10 * time.Minute })
	owner := in.Token(t, "support-ci", registry.RoleOwner, "io.github.acme")
	r := call(t, "POST", in.URL+"/v1/versions", owner, ticketsWithContract("1.0.0", contractV1))
	if r.Status != http.StatusOK {
		t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	if !strings.Contains(string(r.Body), "token lifetime 15m0s is over the maximum of 10m0s") {
		t.Fatalf("a 15m token TTL under a 10m maximum: no finding naming the configured maximum: %s", r.Body)
	}
	if kinds, _ := findings(t, r.json(t)); !strings.Contains(strings.Join(kinds, " "), contract.KindTokenTTLOverMax) {
		t.Fatalf("findings %v lack %s", kinds, contract.KindTokenTTLOverMax)
	}
}
