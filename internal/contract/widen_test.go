package contract

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/finding"
)

// wideBase is the previous approved contract of the widening tests.
const wideBase = `
contractVersion: mcpreg.contract/v1
owner: team
auth: {mode: delegated_oauth, tokenAudience: "https://r.example", scopes: [a.read], tokenTtl: 15m}
hostEnvironments: [prod]
isolation: container
egress: {mode: allowlisted_external, allow: [a.example.com]}
secrets: [{name: S1}]
replayProtection: nonce_and_trace_bound_signature
tools:
  - {name: t, riskTier: write, sideEffect: external_write, approval: {mode: conditional, rule: "amount > 100"}, timeout: 10, idempotency: requires_key}
  - {name: u, riskTier: read}
`

var wideTools = []string{"t", "u"}

func normalized(t *testing.T, doc string, tools ...string) Normalized {
	t.Helper()
	if tools == nil {
		tools = wideTools
	}
	return mustParse(t, doc).Normalize(tools)
}

func edit(t *testing.T, from, to string) string {
	t.Helper()
	if !strings.Contains(wideBase, from) {
		t.Fatalf("edit %q does not apply", from)
	}
	return strings.Replace(wideBase, from, to, 1)
}

func TestWidenings(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		ids            []string
		ptr, tool      string
	}{
		{"owner changed", "owner: team", "owner: other", []string{"owner_changed:team:other"}, "/owner", ""},
		{"auth mode changed", "mode: delegated_oauth", "mode: platform_oauth, userDelegationRequired: true", []string{"auth_mode_changed:delegated_oauth:platform_oauth"}, "/auth/mode", ""},
		{"audience changed", `"https://r.example"`, `"https://s.example"`, []string{"token_audience_changed:https%3A//r.example:https%3A//s.example"}, "/auth/tokenAudience", ""},
		{"isolation changed", "isolation: container", "isolation: remote_ephemeral_sandbox", []string{"isolation_changed:container:remote_ephemeral_sandbox"}, "/isolation", ""},
		{"scope added", "scopes: [a.read]", "scopes: [a.read, a:write]", []string{"scope_added:a%3Awrite"}, "/auth/scopes", ""},
		{"TTL longer", "tokenTtl: 15m", "tokenTtl: 1h", []string{"token_ttl_longer:900s:3600s"}, "/auth/tokenTtlSeconds", ""},
		{"user delegation dropped", "mode: delegated_oauth", "mode: platform_oauth", []string{"auth_mode_changed:delegated_oauth:platform_oauth", "user_delegation_dropped"}, "", ""},
		{"host environment added", "hostEnvironments: [prod]", "hostEnvironments: [prod, dev]", []string{"host_environment_added:dev"}, "/hostEnvironments/allow", ""},
		{"host environments unrestricted", "hostEnvironments: [prod]\n", "", []string{"host_environments_unrestricted"}, "/hostEnvironments/restricted", ""},
		{"egress host added", "allow: [a.example.com]", "allow: [a.example.com, '*.b.example.com']", []string{"egress_host_added:*.b.example.com"}, "/egress/allow", ""},
		{"egress allow-list to brokered", "{mode: allowlisted_external, allow: [a.example.com]}", "{mode: brokered_gateway}", []string{"egress_widened:allowlisted_external:brokered_gateway"}, "/egress/mode", ""},
		{"secret added", "secrets: [{name: S1}]", "secrets: [{name: S1}, {name: S2}]", []string{"secret_added:S2"}, "/secrets", ""},
		{"result filtering off", "replayProtection:", "resultHandling: {untrustedContentFiltering: false}\nreplayProtection:", []string{"result_filtering_disabled"}, "/resultHandling/untrustedContentFiltering", ""},
		{"boundary markers off", "replayProtection:", "resultHandling: {boundaryMarkers: false}\nreplayProtection:", []string{"boundary_markers_disabled"}, "/resultHandling/boundaryMarkers", ""},
		{"replay protection weakened", "replayProtection: nonce_and_trace_bound_signature", "replayProtection: nonce", []string{"replay_protection_weakened:nonce_and_trace_bound_signature:nonce"}, "/replayProtection", ""},
		{"tool tier lowered", "name: t, riskTier: write", "name: t, riskTier: read", []string{"tool_tier_lowered:t:write:read"}, "/tools/0/riskTier", "t"},
		{"tool side effect removed", "sideEffect: external_write", "sideEffect: none", []string{"tool_side_effect_removed:t"}, "/tools/0/sideEffect", "t"},
		{"approval removed", `approval: {mode: conditional, rule: "amount > 100"}`, "approval: none", []string{"tool_approval_weakened:t:conditional:none"}, "/tools/0/approval/mode", "t"},
		{"approval rule changed", `rule: "amount > 100"`, `rule: "amount > 1000"`, []string{"tool_approval_rule_changed:t"}, "/tools/0/approval/rule", "t"},
		{"timeout longer", "timeout: 10", "timeout: 1m", []string{"tool_timeout_longer:t:10:60"}, "/tools/0/timeoutSeconds", "t"},
		{"idempotency relaxed", "idempotency: requires_key", "idempotency: idempotent", []string{"tool_idempotency_relaxed:t"}, "/tools/0/idempotency", "t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := Widenings(normalized(t, wideBase), normalized(t, edit(t, tc.from, tc.to)))
			var ids []string
			for _, w := range ws {
				ids = append(ids, w.ID)
				if w.Severity != finding.High || !strings.HasPrefix(w.Kind, "contract.widening.") || w.Message == "" ||
					!strings.HasPrefix(w.ID, strings.TrimPrefix(w.Kind, "contract.widening.")) {
					t.Errorf("malformed widening %+v", w)
				}
			}
			if !slices.Equal(ids, tc.ids) {
				t.Errorf("IDs = %q, want %q", ids, tc.ids)
			}
			if tc.ptr != "" && (ws[0].Pointer != tc.ptr || ws[0].Tool != tc.tool) {
				t.Errorf("pointer, tool = %q, %q; want %q, %q", ws[0].Pointer, ws[0].Tool, tc.ptr, tc.tool)
			}
		})
	}
}

func TestNarrowingIsNoWidening(t *testing.T) {
	narrow := wideBase
	for _, e := range [][2]string{
		{"scopes: [a.read]", "scopes: []"},
		{"tokenTtl: 15m", "tokenTtl: 5m"},
		{"{mode: allowlisted_external, allow: [a.example.com]}", "{mode: internal_only}"},
		{"secrets: [{name: S1}]", "secrets: []"},
		{"riskTier: write", "riskTier: high_risk_execution"},
		{`approval: {mode: conditional, rule: "amount > 100"}`, "approval: always"},
		{"timeout: 10", "timeout: 5"},
		{"{name: u, riskTier: read}", "{name: u, riskTier: write}"},
	} {
		narrow = strings.Replace(narrow, e[0], e[1], 1)
	}
	if ws := Widenings(normalized(t, wideBase), normalized(t, narrow)); len(ws) != 0 {
		t.Errorf("narrowing reported as widening: %v", ws)
	}
	if ws := Widenings(normalized(t, wideBase), normalized(t, wideBase)); len(ws) != 0 {
		t.Errorf("identical contracts: %v", ws)
	}
	// Removing a tool, or every restriction on the tool's list, narrows.
	if ws := Widenings(normalized(t, wideBase), normalized(t, wideBase, "t")); len(ws) != 0 {
		t.Errorf("tool removed: %v", ws)
	}
}

func TestEgressLattice(t *testing.T) {
	modes := []EgressMode{EgressDenied, EgressInternalOnly, EgressBrokeredGateway, EgressAllowlistedExternal}
	wider := map[[2]EgressMode]bool{
		{EgressDenied, EgressInternalOnly}: true, {EgressDenied, EgressBrokeredGateway}: true, {EgressDenied, EgressAllowlistedExternal}: true,
		{EgressInternalOnly, EgressBrokeredGateway}: true, {EgressInternalOnly, EgressAllowlistedExternal}: true,
		{EgressBrokeredGateway, EgressAllowlistedExternal}: true, {EgressAllowlistedExternal, EgressBrokeredGateway}: true,
	}
	for _, p := range modes {
		for _, n := range modes {
			ws := egressWidenings(Egress{Mode: p}, Egress{Mode: n})
			if got := len(ws) == 1; got != wider[[2]EgressMode{p, n}] {
				t.Errorf("%s -> %s: widening = %v", p, n, got)
			}
		}
	}
}

// TestNewToolComparedWithStrictestDefaults: a new tool is no widening by
// itself, but declaring it looser than the strictest defaults is, so a
// tool cannot be loosened by removing it in one version and adding it back
// in the next.
func TestNewToolComparedWithStrictestDefaults(t *testing.T) {
	prev := normalized(t, wideBase)
	strict := normalized(t, wideBase+"  - {name: v, riskTier: high_risk_execution}\n", "t", "u", "v")
	if ws := Widenings(prev, strict); len(ws) != 0 {
		t.Errorf("new strict tool: %v", ws)
	}
	undeclared := normalized(t, wideBase, "t", "u", "v")
	if ws := Widenings(prev, undeclared); len(ws) != 0 {
		t.Errorf("new undeclared tool: %v", ws)
	}
	loose := normalized(t, wideBase+"  - {name: v, riskTier: read, approval: none}\n", "t", "u", "v")
	var ids []string
	for _, w := range Widenings(prev, loose) {
		ids = append(ids, w.ID)
		if !strings.Contains(w.Message, "new tool") {
			t.Errorf("message should say the tool is new: %q", w.Message)
		}
	}
	want := []string{"tool_approval_weakened:v:always:none", "tool_idempotency_relaxed:v", "tool_tier_lowered:v:high_risk_execution:read", "tool_side_effect_removed:v"}
	if !slices.Equal(ids, want) {
		t.Errorf("IDs = %q, want %q", ids, want)
	}
}

func TestWideningsFromDefaultContract(t *testing.T) {
	ws := Widenings(Default().Normalize(wideTools), normalized(t, wideBase))
	ids := mapSlice(ws, func(w Widening) string { return w.ID })
	for _, want := range []string{"owner_changed:(none):team", "auth_mode_changed:none:delegated_oauth", "isolation_changed:remote_ephemeral_sandbox:container",
		"egress_widened:denied:allowlisted_external", "egress_host_added:a.example.com", "secret_added:S1", "scope_added:a.read"} {
		if !slices.Contains(ids, want) {
			t.Errorf("missing %s in %q", want, ids)
		}
	}
	// The default contract is the strictest but for host environments,
	// which it leaves unrestricted: nothing else widens towards it except
	// the changes that are always listed.
	back := Widenings(normalized(t, wideBase), Default().Normalize(wideTools))
	for _, w := range back {
		switch w.Kind {
		case KindOwnerChanged, KindAuthModeChanged, KindTokenAudienceChanged, KindIsolationChanged, KindHostEnvironmentsOpened:
		default:
			t.Errorf("unexpected widening towards the default contract: %+v", w)
		}
	}
}

func TestTTLWidenings(t *testing.T) {
	ttl := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		prev, next *int64
		mode       AuthMode
		want       bool
	}{
		{ttl(60), ttl(61), AuthAPIKey, true},
		{ttl(60), nil, AuthAPIKey, true},
		{nil, ttl(60), AuthAPIKey, false},
		{nil, nil, AuthAPIKey, false},
		{ttl(60), nil, AuthNone, false},
	} {
		ws := authWidenings(Auth{Mode: tc.mode, TokenTTLSeconds: tc.prev}, Auth{Mode: tc.mode, TokenTTLSeconds: tc.next})
		if got := len(ws) == 1 && ws[0].Kind == KindTokenTTLLonger; got != tc.want {
			t.Errorf("%v -> %v (%s): %v", ttlText(tc.prev), ttlText(tc.next), tc.mode, ws)
		}
	}
}

func TestWideningIDsAreStable(t *testing.T) {
	next := normalized(t, edit(t, "scopes: [a.read]", "scopes: [a.read, b, c]"))
	a := Widenings(normalized(t, wideBase), next)
	b := Widenings(normalized(t, wideBase), next)
	if len(a) != 2 || !slices.EqualFunc(a, b, func(x, y Widening) bool { return x.ID == y.ID }) {
		t.Fatalf("widenings differ between runs: %v %v", a, b)
	}
	if got := Unacknowledged(a, []string{"scope_added:b"}); len(got) != 1 || got[0].ID != "scope_added:c" {
		t.Errorf("Unacknowledged = %v", got)
	}
	if got := Unacknowledged(a, []string{"scope_added:b", "scope_added:c", "other"}); len(got) != 0 {
		t.Errorf("Unacknowledged = %v", got)
	}
}
