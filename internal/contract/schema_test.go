package contract

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// doc returns a valid minimal contract with members replaced or added by
// override (a nil value removes the member).
func doc(t *testing.T, override map[string]any) string {
	t.Helper()
	d := map[string]any{
		"contractVersion": Version, "owner": "team", "auth": map[string]any{"mode": "none"}, "isolation": "container",
	}
	maps.Copy(d, override)
	for k, v := range d {
		if v == nil {
			delete(d, k)
		}
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type m = map[string]any
type a = []any

var oauth = m{"mode": "platform_oauth", "tokenAudience": "https://r.example", "scopes": a{"s"}, "tokenTtl": "1h"}

func withAuth(kv ...any) m {
	out := maps.Clone(oauth)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func TestSchemaViolations(t *testing.T) {
	tool := func(kv ...any) m {
		out := m{"name": "t", "riskTier": "read"}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		override m
		pointer  string
		message  string // substring
	}{
		{"missing contractVersion", m{"contractVersion": nil}, "/contractVersion", "required member is missing"},
		{"wrong contractVersion", m{"contractVersion": "1"}, "/contractVersion", "mcpreg.contract/v1"},
		{"numeric contractVersion", m{"contractVersion": 1}, "/contractVersion", "mcpreg.contract/v1"},
		{"missing owner", m{"owner": nil}, "/owner", "required member is missing"},
		{"empty owner", m{"owner": ""}, "/owner", "minLength"},
		{"missing auth", m{"auth": nil}, "/auth", "required member is missing"},
		{"missing isolation", m{"isolation": nil}, "/isolation", "required member is missing"},
		{"unknown top-level member", m{"tokenTtl": "1h"}, "/tokenTtl", "unknown member"},
		{"not an object", nil, "", "got array, want object"},
		{"unknown auth mode", m{"auth": m{"mode": "oauth"}}, "/auth/mode", "value must be one of"},
		{"missing auth mode", m{"auth": m{}}, "/auth/mode", "required member is missing"},
		{"unknown auth member", m{"auth": withAuth("tokenTTL", "1h")}, "/auth/tokenTTL", "unknown member"},
		{"scopes under auth none", m{"auth": m{"mode": "none", "scopes": a{"x"}}}, "/auth/scopes", "when auth.mode is none"},
		{"audience under auth none", m{"auth": m{"mode": "none", "tokenAudience": "x"}}, "/auth/tokenAudience", "when auth.mode is none"},
		{"delegation under auth none", m{"auth": m{"mode": "none", "userDelegationRequired": false}}, "/auth/userDelegationRequired", "when auth.mode is none"},
		{"OAuth without audience", m{"auth": withAuth("tokenAudience", nil)}, "/auth/tokenAudience", "required member is missing (when auth.mode is platform_oauth"},
		{"OAuth without TTL", m{"auth": withAuth("tokenTtl", nil)}, "/auth/tokenTtl", "required member is missing"},
		{"wildcard audience", m{"auth": withAuth("tokenAudience", "passthrough")}, "/auth/tokenAudience", "never a wildcard"},
		{"delegated OAuth without delegation", m{"auth": withAuth("mode", "delegated_oauth", "userDelegationRequired", false)}, "/auth/userDelegationRequired", "value must be true"},
		{"scope with a space", m{"auth": withAuth("scopes", a{"a b"})}, "/auth/scopes/0", "does not match pattern"},
		{"scopes not a list", m{"auth": withAuth("scopes", "a b")}, "/auth/scopes", "got string, want array"},
		{"TTL zero", m{"auth": withAuth("tokenTtl", 0)}, "/auth/tokenTtl", "under the minimum of 1"},
		{"TTL over a year", m{"auth": withAuth("tokenTtl", 31536001)}, "/auth/tokenTtl", "over the maximum of 31536000"},
		{"TTL fractional", m{"auth": withAuth("tokenTtl", 1.5)}, "/auth/tokenTtl", "got number, want integer or string"},
		{"TTL boolean", m{"auth": withAuth("tokenTtl", true)}, "/auth/tokenTtl", "got boolean"},
		{"empty host environments", m{"hostEnvironments": a{}}, "/hostEnvironments", "minItems"},
		{"bad host environment label", m{"hostEnvironments": a{"prod env"}}, "/hostEnvironments/0", "does not match pattern"},
		{"unknown isolation", m{"isolation": "vm"}, "/isolation", "value must be one of"},
		{"unknown egress mode", m{"egress": m{"mode": "open"}}, "/egress/mode", "value must be one of"},
		{"allow-list without list", m{"egress": m{"mode": "allowlisted_external"}}, "/egress/allow", "required member is missing"},
		{"allow-list empty", m{"egress": m{"mode": "allowlisted_external", "allow": a{}}}, "/egress/allow", "minItems"},
		{"list under internal_only", m{"egress": m{"mode": "internal_only", "allow": a{"a.example"}}}, "/egress/allow", "unless egress.mode is allowlisted_external"},
		{"bad egress host", m{"egress": m{"mode": "allowlisted_external", "allow": a{"https://a.example/"}}}, "/egress/allow/0", "does not match pattern"},
		{"secret value member", m{"secrets": a{m{"name": "A", "value": "v"}}}, "/secrets/0/value", "unknown member"},
		{"secret without name", m{"secrets": a{m{}}}, "/secrets/0/name", "required member is missing"},
		{"secrets as strings", m{"secrets": a{"A"}}, "/secrets/0", "got string, want object"},
		{"result handling not boolean", m{"resultHandling": m{"boundaryMarkers": "yes"}}, "/resultHandling/boundaryMarkers", `"yes" is a string`},
		{"unknown replay protection", m{"replayProtection": "signature"}, "/replayProtection", "value must be one of"},
		{"tool without name", m{"tools": a{m{"riskTier": "read"}}}, "/tools/0/name", "required member is missing"},
		{"tool without tier", m{"tools": a{m{"name": "t"}}}, "/tools/0/riskTier", "required member is missing"},
		{"unknown tier", m{"tools": a{tool("riskTier", "low")}}, "/tools/0/riskTier", "value must be one of"},
		{"unknown side effect", m{"tools": a{tool("sideEffect", "write")}}, "/tools/0/sideEffect", "value must be one of"},
		{"unknown approval word", m{"tools": a{tool("approval", "conditional")}}, "/tools/0/approval", "or an object {mode, rule}"},
		{"unknown approval mode", m{"tools": a{tool("approval", m{"mode": "sometimes"})}}, "/tools/0/approval/mode", "value must be one of"},
		{"conditional without rule", m{"tools": a{tool("approval", m{"mode": "conditional"})}}, "/tools/0/approval/rule", "when approval.mode is conditional"},
		{"rule without conditional", m{"tools": a{tool("approval", m{"mode": "none", "rule": "r"})}}, "/tools/0/approval/rule", "unless approval.mode is conditional"},
		{"approval number", m{"tools": a{tool("approval", 1)}}, "/tools/0/approval", "got number, want object"},
		{"unknown idempotency", m{"tools": a{tool("idempotency", "once")}}, "/tools/0/idempotency", "value must be one of"},
		{"timeout over a day", m{"tools": a{tool("timeout", 86401)}}, "/tools/0/timeout", "over the maximum of 86400"},
		{"unknown tool member", m{"tools": a{tool("network", "denied")}}, "/tools/0/network", "unknown member"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := "[]"
			if tc.override != nil {
				text = doc(t, tc.override)
			}
			vs := violations(t, text)
			for _, v := range vs {
				if v.Pointer == tc.pointer && strings.Contains(v.Message, tc.message) {
					return
				}
			}
			t.Errorf("want a violation at %q containing %q, got %v", tc.pointer, tc.message, vs)
		})
	}
}

// TestSchemaReportsEveryViolation: one document, many problems, all listed.
func TestSchemaReportsEveryViolation(t *testing.T) {
	vs := violations(t, doc(t, m{
		"owner": "", "isolation": "vm", "replayProtection": "x",
		"tools": a{m{"name": "a", "riskTier": "x"}, m{"name": "a", "riskTier": "read", "timeout": "soon"}},
	}))
	want := []string{"/isolation", "/owner", "/replayProtection", "/tools/0/riskTier", "/tools/1/name", "/tools/1/timeout"}
	got := (&ValidationError{Kind: ErrInvalid, Violations: vs}).Pointers()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("pointers = %q, want %q", got, want)
	}
}

func TestSchemasArePublishable(t *testing.T) {
	for name, s := range map[string][]byte{"input": SchemaJSON, "normalized": NormalizedSchemaJSON} {
		var v map[string]any
		if err := json.Unmarshal(s, &v); err != nil {
			t.Fatalf("%s schema: %v", name, err)
		}
		if v["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s schema: $schema = %v", name, v["$schema"])
		}
	}
	if _, err := schemas(); err != nil {
		t.Fatal(err)
	}
}
