package contract

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultNormalized(t *testing.T) {
	n := Default().Normalize([]string{"b", "a", "b"})
	want := Normalized{
		ContractVersion:  Version,
		Auth:             Auth{Mode: AuthNone, Scopes: []string{}},
		HostEnvironments: HostEnvironments{Restricted: false, Allow: []string{}},
		Isolation:        IsolationRemoteEphemeralSandbox,
		Egress:           Egress{Mode: EgressDenied, Allow: []string{}},
		Secrets:          []Secret{},
		ResultHandling:   ResultHandling{UntrustedContentFiltering: true, BoundaryMarkers: true},
		ReplayProtection: ReplayNonceAndTraceBoundSignature,
		Tools:            []Tool{StrictestTool("a"), StrictestTool("b")},
	}
	if diff := cmp.Diff(want, n); diff != "" {
		t.Errorf("default contract (-want +got):\n%s", diff)
	}
	strict := Tool{Name: "a", RiskTier: TierHighRiskExecution, SideEffect: SideEffectExternalWrite,
		Approval: Approval{Mode: ApprovalAlways}, TimeoutSeconds: DefaultTimeoutSeconds, Idempotency: RequiresKey}
	if diff := cmp.Diff(strict, StrictestTool("a")); diff != "" {
		t.Errorf("strictest tool (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(n.JSON()), `"owner":null`) || !strings.Contains(string(n.JSON()), `"tokenTtlSeconds":null`) {
		t.Errorf("absent values must be served as null: %s", n.JSON())
	}
}

func TestNormalizeToolDefaults(t *testing.T) {
	c := mustParse(t, minimalYAML+`tools:
  - {name: r, riskTier: read}
  - {name: w, riskTier: write}
  - {name: x, riskTier: high_risk_execution, approval: none}
  - {name: gone, riskTier: read}
`)
	n := c.Normalize([]string{"x", "w", "r", "undeclared"})
	want := []Tool{
		{Name: "r", RiskTier: TierRead, SideEffect: SideEffectNone, Approval: Approval{Mode: ApprovalAlways}, TimeoutSeconds: DefaultTimeoutSeconds, Idempotency: Idempotent},
		StrictestTool("undeclared"),
		{Name: "w", RiskTier: TierWrite, SideEffect: SideEffectExternalWrite, Approval: Approval{Mode: ApprovalAlways}, TimeoutSeconds: DefaultTimeoutSeconds, Idempotency: RequiresKey},
		{Name: "x", RiskTier: TierHighRiskExecution, SideEffect: SideEffectExternalWrite, Approval: Approval{Mode: ApprovalNone}, TimeoutSeconds: DefaultTimeoutSeconds, Idempotency: RequiresKey},
	}
	if diff := cmp.Diff(want, n.Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	declared := c.Normalize(c.ToolNames())
	if got := mapSlice(declared.Tools, func(t Tool) string { return t.Name }); !slices.Equal(got, []string{"gone", "r", "w", "x"}) {
		t.Errorf("Normalize(ToolNames()) tools = %v", got)
	}
}

func TestNormalizeSortsAndDeduplicates(t *testing.T) {
	c := mustParse(t, `
contractVersion: mcpreg.contract/v1
owner: team
auth: {mode: platform_oauth, tokenAudience: r, scopes: [b, a, b, "B"], tokenTtl: 60}
hostEnvironments: [z, a, z]
isolation: container
egress: {mode: allowlisted_external, allow: [B.example.com, a.example.com, b.EXAMPLE.com]}
secrets: [{name: Z}, {name: A}]
`)
	n := c.Normalize(nil)
	for _, tc := range []struct {
		name      string
		got, want []string
	}{
		{"scopes", n.Auth.Scopes, []string{"B", "a", "b"}},
		{"host environments", n.HostEnvironments.Allow, []string{"a", "z"}},
		{"egress", n.Egress.Allow, []string{"a.example.com", "b.example.com"}},
		{"secrets", mapSlice(n.Secrets, func(s Secret) string { return s.Name }), []string{"A", "Z"}},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if !n.HostEnvironments.Restricted || n.Auth.UserDelegationRequired || *n.Auth.TokenTTLSeconds != 60 {
		t.Errorf("unexpected %+v", n)
	}
	if !slices.Equal(c.Auth.Scopes, []string{"b", "a", "b", "B"}) {
		t.Errorf("Normalize must not modify the contract: %q", c.Auth.Scopes)
	}
}

func TestNormalizeUserDelegationDefault(t *testing.T) {
	for mode, want := range map[string]bool{"delegated_oauth": true, "platform_oauth": false} {
		c := mustParse(t, strings.Replace(minimalYAML, "{mode: none}", "{mode: "+mode+", tokenAudience: r, scopes: [s], tokenTtl: 60}", 1))
		if got := c.Normalize(nil).Auth.UserDelegationRequired; got != want {
			t.Errorf("%s: userDelegationRequired = %v, want %v", mode, got, want)
		}
	}
}

// TestHashIgnoresFormAndOrder: the hash is a function of the contract, not
// of YAML or JSON, key order, list order or duplicates.
func TestHashIgnoresFormAndOrder(t *testing.T) {
	forms := []string{
		`{"contractVersion":"mcpreg.contract/v1","owner":"t","auth":{"mode":"api_key","scopes":["a","b"]},"isolation":"container","hostEnvironments":["x","y"]}`,
		`{"hostEnvironments":["y","x","y"],"isolation":"container","auth":{"scopes":["b","a"],"mode":"api_key"},"owner":"t","contractVersion":"mcpreg.contract/v1"}`,
		"contractVersion: mcpreg.contract/v1\nowner: t\nauth:\n  mode: api_key\n  scopes: [b, a]\nisolation: container\nhostEnvironments: [y, x]\n",
		"hostEnvironments:\n- x\n- y\nisolation: 'container'\nauth: {scopes: [a, b], mode: \"api_key\"}\nowner: t\ncontractVersion: \"mcpreg.contract/v1\"\n",
	}
	var hashes []string
	for _, f := range forms {
		h, err := mustParse(t, f).Normalize([]string{"q", "p"}).Hash()
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, h)
	}
	if len(slices.Compact(hashes)) != 1 {
		t.Errorf("hashes differ: %q", hashes)
	}
	other, _ := mustParse(t, strings.Replace(forms[0], `"owner":"t"`, `"owner":"u"`, 1)).Normalize([]string{"q", "p"}).Hash()
	if other == hashes[0] {
		t.Error("a different owner must give a different hash")
	}
}

func TestJSONServesEmptyListsAndNoHTMLEscapes(t *testing.T) {
	n := Normalized{ContractVersion: Version, Tools: []Tool{{Name: "<a&b>"}}}
	js := string(n.JSON())
	for _, want := range []string{`"scopes":[]`, `"secrets":[]`, `"allow":[]`, `"name":"<a&b>"`} {
		if !strings.Contains(js, want) {
			t.Errorf("JSON() = %s, want it to contain %s", js, want)
		}
	}
	if !json.Valid(n.JSON()) || strings.HasSuffix(js, "\n") {
		t.Errorf("JSON() = %q", js)
	}
}

func TestDecodeNormalized(t *testing.T) {
	c := mustParse(t, minimalYAML+"tools: [{name: a, riskTier: write, approval: {mode: conditional, rule: r}}]\n")
	n := c.Normalize([]string{"a", "b"})
	got, err := DecodeNormalized(n.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(n, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	good := string(n.JSON())
	for _, tc := range []struct{ name, doc, ptr string }{
		{"tools out of order", strings.Replace(good, `"name":"a"`, `"name":"c"`, 1), "/tools"},
		{"rule on always", strings.Replace(good, `"mode":"always","rule":null`, `"mode":"always","rule":"x"`, 1), "/tools/1/approval/rule"},
		{"missing member", strings.Replace(good, `"replayProtection":"nonce_and_trace_bound_signature",`, "", 1), "/replayProtection"},
		{"input form", string(c.InputJSON()), "/auth/scopes"},
		{"duplicate member", strings.Replace(good, `"owner":"team"`, `"owner":"team","owner":"x"`, 1), "/owner"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeNormalized([]byte(tc.doc))
			var verr *ValidationError
			if !asValidation(err, &verr) || !slices.Contains(verr.Pointers(), tc.ptr) {
				t.Errorf("want a violation at %s, got %v", tc.ptr, err)
			}
		})
	}
}
