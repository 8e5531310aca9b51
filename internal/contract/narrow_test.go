package contract

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/finding"
)

// TestNarrowings: each change of TestWidenings made the other way round is
// a narrowing said forwards, and changes reported both ways stay widenings
// only.
func TestNarrowings(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		// the edit turns the base into the wider contract; the narrowing
		// goes from that contract back to the base.
		want []string // kind suffix: message
	}{
		{"scope removed", "scopes: [a.read]", "scopes: [a.read, a:write]", []string{`scope_added: token scope "a:write" removed`}},
		{"TTL shorter", "tokenTtl: 15m", "tokenTtl: 1h", []string{"token_ttl_longer: token lifetime shorter: 900s, was 3600s"}},
		{"user delegation required", "mode: delegated_oauth", "mode: platform_oauth", []string{"user_delegation_dropped: user delegation now required"}},
		{"host environment removed", "hostEnvironments: [prod]", "hostEnvironments: [prod, dev]", []string{`host_environment_added: host environment "dev" removed`}},
		{"host environments restricted", "hostEnvironments: [prod]\n", "", []string{"host_environments_unrestricted: host environments now restricted, were unrestricted"}},
		{"egress host removed", "allow: [a.example.com]", "allow: [a.example.com, b.example.com]", []string{`egress_host_added: egress destination "b.example.com" removed`}},
		{"secret removed", "secrets: [{name: S1}]", "secrets: [{name: S1}, {name: S2}]", []string{`secret_added: secret "S2" removed`}},
		{"result filtering on", "replayProtection:", "resultHandling: {untrustedContentFiltering: false}\nreplayProtection:", []string{"result_filtering_disabled: tool results now filtered as untrusted content"}},
		{"boundary markers on", "replayProtection:", "resultHandling: {boundaryMarkers: false}\nreplayProtection:", []string{"boundary_markers_disabled: tool results now wrapped in boundary markers"}},
		{"replay protection strengthened", "replayProtection: nonce_and_trace_bound_signature", "replayProtection: nonce", []string{"replay_protection_weakened: replay protection strengthened from nonce to nonce_and_trace_bound_signature"}},
		{"tier raised", "name: t, riskTier: write", "name: t, riskTier: read", []string{"tool_tier_lowered: risk tier raised from read to write"}},
		{"side effect declared", "sideEffect: external_write", "sideEffect: none", []string{"tool_side_effect_removed: side effect now declared: external writes"}},
		{"approval strengthened", `approval: {mode: conditional, rule: "amount > 100"}`, "approval: none", []string{"tool_approval_weakened: approval strengthened from none to conditional"}},
		{"timeout shorter", "timeout: 10", "timeout: 1m", []string{"tool_timeout_longer: timeout shorter: 10s, was 60s"}},
		{"idempotency tightened", "idempotency: requires_key", "idempotency: idempotent", []string{"tool_idempotency_relaxed: idempotency tightened from idempotent to requires_key"}},
		// Reported both ways: widenings only.
		{"owner changed", "owner: team", "owner: other", nil},
		{"isolation changed", "isolation: container", "isolation: remote_ephemeral_sandbox", nil},
		{"audience changed", `"https://r.example"`, `"https://s.example"`, nil},
		{"approval rule changed", `rule: "amount > 100"`, `rule: "amount > 1000"`, nil},
		{"egress lateral", "{mode: allowlisted_external, allow: [a.example.com]}", "{mode: brokered_gateway}", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wide := normalized(t, edit(t, tc.from, tc.to))
			var got []string
			for _, f := range Narrowings(wide, normalized(t, wideBase)) {
				if f.Severity != finding.Info || !strings.HasPrefix(f.Kind, KindNarrowingPrefix) {
					t.Errorf("malformed narrowing %+v", f)
				}
				got = append(got, strings.TrimPrefix(f.Kind, KindNarrowingPrefix)+": "+f.Message)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("narrowings = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNarrowingsOfTools: a tool the next contract drops is one narrowing,
// not one per member; identical contracts narrow nothing; a widening is
// never a narrowing too.
func TestNarrowingsOfTools(t *testing.T) {
	base := normalized(t, wideBase)
	if ns := Narrowings(base, base); len(ns) != 0 {
		t.Errorf("identical contracts: %v", ns)
	}
	ns := Narrowings(base, normalized(t, wideBase, "t"))
	if len(ns) != 1 || ns[0].Kind != KindToolDropped || ns[0].Tool != "u" || ns[0].Pointer != "/tools/1" {
		t.Errorf("tool u dropped: %+v", ns)
	}
	wider := normalized(t, edit(t, "scopes: [a.read]", "scopes: [a.read, a.write]"))
	if ns := Narrowings(base, wider); len(ns) != 0 {
		t.Errorf("a widening reported as narrowing: %v", ns)
	}
}
