package contract

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const minimalYAML = "contractVersion: mcpreg.contract/v1\nowner: team\nauth: {mode: none}\nisolation: container\n"

// mustParse parses a document the test expects to be valid.
func mustParse(t *testing.T, doc string) *Contract {
	t.Helper()
	c, err := Parse([]byte(doc), Limits{})
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return c
}

// violations parses a document the test expects to be invalid.
func violations(t *testing.T, doc string) []Violation {
	t.Helper()
	_, err := Parse([]byte(doc), Limits{})
	var verr *ValidationError
	if !errors.As(err, &verr) || !errors.Is(err, ErrInvalid) || errors.Is(err, ErrTooLarge) {
		t.Fatalf("Parse: want *ValidationError matching ErrInvalid only, got %v", err)
	}
	return verr.Violations
}

func TestParseYAMLAndJSONGiveOneContract(t *testing.T) {
	yamlDoc := `
contractVersion: mcpreg.contract/v1
owner: team
auth:
  mode: platform_oauth
  tokenAudience: https://api.example.com
  scopes: [b, a]
  tokenTtl: 1h
isolation: container
tools:
  - name: t
    riskTier: write
    approval: {mode: conditional, rule: "amount > 100"}
    timeout: 45
`
	jsonDoc := `{"tools":[{"timeout":"45s","approval":{"rule":"amount > 100","mode":"conditional"},"riskTier":"write","name":"t"}],
	"isolation":"container","auth":{"tokenTtl":3600,"scopes":["a","b"],"tokenAudience":"https://api.example.com","mode":"platform_oauth"},
	"owner":"team","contractVersion":"mcpreg.contract/v1"}`
	a, b := mustParse(t, yamlDoc).Normalize([]string{"t"}), mustParse(t, jsonDoc).Normalize([]string{"t"})
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("YAML and JSON forms differ (-yaml +json):\n%s", diff)
	}
	ha, _ := a.Hash()
	hb, _ := b.Hash()
	if ha != hb || string(a.JSON()) != string(b.JSON()) {
		t.Errorf("served forms differ: %s %s", ha, hb)
	}
}

func TestParseKeepsInputJSON(t *testing.T) {
	c := mustParse(t, "# comment\n"+minimalYAML)
	want := `{"contractVersion":"mcpreg.contract/v1","owner":"team","auth":{"mode":"none"},"isolation":"container"}`
	if got := string(c.InputJSON()); got != want {
		t.Errorf("InputJSON = %s, want %s", got, want)
	}
	js := `  {"contractVersion":"mcpreg.contract/v1", "owner":"team","auth":{"mode":"none"},"isolation":"container"}`
	if got := string(mustParse(t, js).InputJSON()); got != js {
		t.Errorf("InputJSON of a JSON document = %s, want it unchanged", got)
	}
	if Default().InputJSON() != nil {
		t.Error("Default().InputJSON() should be nil")
	}
}

func TestParseYAMLScalars(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       func(*Contract) bool
	}{
		{"no stays a string where strings belong", "owner: no", func(c *Contract) bool { return c.Owner == "no" }},
		{"on stays a string in a list", "hostEnvironments: [on, off, yes, NO]", func(c *Contract) bool {
			return slices.Equal(c.HostEnvironments, []string{"on", "off", "yes", "NO"})
		}},
		{"a date stays the text written", "owner: 2024-01-02", func(c *Contract) bool { return c.Owner == "2024-01-02" }},
		{"sexagesimal stays a string", "owner: 12:30", func(c *Contract) bool { return c.Owner == "12:30" }},
		{"quoted number is a string", `owner: "123"`, func(c *Contract) bool { return c.Owner == "123" }},
		{"explicit str tag", "owner: !!str 123", func(c *Contract) bool { return c.Owner == "123" }},
		{"HTML characters survive", "owner: a<b>&c", func(c *Contract) bool { return c.Owner == "a<b>&c" }},
		{"True is a boolean", "resultHandling: {boundaryMarkers: True}", func(c *Contract) bool {
			return c.ResultHandling.BoundaryMarkers != nil && *c.ResultHandling.BoundaryMarkers
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := minimalYAML + tc.line + "\n"
			if strings.HasPrefix(tc.line, "owner:") {
				doc = strings.Replace(minimalYAML, "owner: team", tc.line, 1)
			}
			if c := mustParse(t, doc); !tc.want(c) {
				t.Errorf("unexpected contract %+v", c)
			}
		})
	}
}

func TestParseRejectsYAMLSurprises(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string // pointers
	}{
		{"anchor and alias", minimalYAML + "hostEnvironments: &e [a]\nsecrets: *e\n", []string{"/hostEnvironments", "/secrets"}},
		{"merge key", minimalYAML + "resultHandling:\n  <<: {boundaryMarkers: true}\n", []string{"/resultHandling"}},
		{"alias as key", minimalYAML + "x: &k owner\nresultHandling: {*k : 1}\n", []string{"/resultHandling", "/x"}},
		{"duplicate key", minimalYAML + "isolation: local_process\n", []string{"/isolation"}},
		{"duplicate nested key", minimalYAML + "egress: {mode: denied, mode: internal_only}\n", []string{"/egress/mode"}},
		{"integer key", minimalYAML + "1: x\n", []string{""}},
		{"collection key", minimalYAML + "? [a]\n: x\n", []string{""}},
		{"custom tag", minimalYAML + "owner2: !secret x\n", []string{"/owner2"}},
		{"set tag", minimalYAML + "owner2: !!set {a}\n", []string{"/owner2"}},
		{"hex integer", minimalYAML + "tools: [{name: a, riskTier: read, timeout: 0x10}]\n", []string{"/tools/0/timeout"}},
		{"octal-looking integer", minimalYAML + "tools: [{name: a, riskTier: read, timeout: 010}]\n", []string{"/tools/0/timeout"}},
		{"NaN", minimalYAML + "tools: [{name: a, riskTier: read, timeout: .nan}]\n", []string{"/tools/0/timeout"}},
		{"two documents", minimalYAML + "---\n" + minimalYAML, []string{""}},
		{"syntax error", "owner: [unclosed\n", []string{""}},
		{"empty document", "# nothing\n", []string{""}},
		{"not an object", "- a\n- b\n", []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := violations(t, tc.doc)
			var got []string
			for _, v := range vs {
				got = append(got, v.Pointer)
			}
			got = slices.Compact(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("pointers = %q, want %q (%v)", got, tc.want, vs)
			}
		})
	}
}

// TestParseRejectsAliasBombs: aliases are refused before anything expands
// them, so a billion-laughs document is rejected like any other alias.
func TestParseRejectsAliasBombs(t *testing.T) {
	var b strings.Builder
	b.WriteString(minimalYAML + "x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 30; i++ {
		fmt.Fprintf(&b, "x%d: &a%d [", i, i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	vs := violations(t, b.String())
	var aliases int
	for _, v := range vs {
		if strings.Contains(v.Message, "aliases") {
			aliases++
		}
	}
	if aliases != 29*9 {
		t.Errorf("want every alias reported (%d), got %d: %v", 29*9, aliases, vs[:3])
	}
}

func TestParseJSONIsStrict(t *testing.T) {
	base := `{"contractVersion":"mcpreg.contract/v1","owner":"team","auth":{"mode":"none"},"isolation":"container"`
	for _, tc := range []struct{ name, doc, ptr string }{
		{"duplicate member", base + `,"owner":"x"}`, "/owner"},
		{"duplicate nested member", base + `,"egress":{"mode":"denied","mode":"denied"}}`, "/egress/mode"},
		{"trailing data", base + `} x`, ""},
		{"invalid UTF-8", base + ",\"x\":\"\xff\"}", "/x"},
		{"lone surrogate", base + `,"x":"\ud800"}`, "/x"},
		{"number out of range", base + `,"tools":[{"name":"a","riskTier":"read","timeout":1e400}]}`, "/tools/0/timeout"},
		{"truncated", base, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := violations(t, tc.doc)
			if len(vs) != 1 || vs[0].Pointer != tc.ptr {
				t.Errorf("violations = %v, want one at %q", vs, tc.ptr)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	big := minimalYAML + "# " + strings.Repeat("x", DefaultMaxBytes) + "\n"
	for _, tc := range []struct {
		name string
		doc  string
		lim  Limits
	}{
		{"size over the default cap", big, Limits{}},
		{"size over a given cap", minimalYAML, Limits{MaxBytes: 20}},
		{"JSON nesting", `{"a":` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}`, Limits{}},
		{"YAML nesting", "a: " + strings.Repeat("[", 20) + strings.Repeat("]", 20) + "\n", Limits{}},
		{"YAML block nesting", nestedBlockYAML(20), Limits{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc), tc.lim)
			var le *LimitError
			if !errors.As(err, &le) || !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrInvalid) {
				t.Fatalf("want *LimitError matching ErrTooLarge only, got %v", err)
			}
		})
	}
	if _, err := Parse([]byte(big), Limits{MaxBytes: len(big)}); err != nil {
		t.Errorf("a document at the limit should parse: %v", err)
	}
}

func nestedBlockYAML(depth int) string {
	var b strings.Builder
	for i := range depth {
		fmt.Fprintf(&b, "%sk:\n", strings.Repeat("  ", i))
	}
	return b.String() + strings.Repeat("  ", depth) + "v: 1\n"
}

func TestParseDecodesEveryMember(t *testing.T) {
	c := mustParse(t, `
contractVersion: mcpreg.contract/v1
owner: team
auth: {mode: mtls, tokenAudience: "spiffe://corp/ticketing", scopes: [x], tokenTtl: P1DT1H, userDelegationRequired: true}
hostEnvironments: [prod]
isolation: remote_managed
egress: {mode: allowlisted_external, allow: [a.example.com, 10.0.0.0/8]}
secrets: [{name: S}]
resultHandling: {untrustedContentFiltering: false, boundaryMarkers: true}
replayProtection: none
tools:
  - {name: t, riskTier: read, sideEffect: external_write, approval: always, timeout: 1m30s, idempotency: requires_key}
`)
	se, idem, ttl, to := SideEffectExternalWrite, RequiresKey, int64(90000), int64(90)
	aud, yes, no := "spiffe://corp/ticketing", true, false
	want := &Contract{
		Owner:            "team",
		Auth:             AuthSpec{Mode: AuthMTLS, TokenAudience: &aud, Scopes: []string{"x"}, TokenTTLSeconds: &ttl, UserDelegationRequired: &yes},
		HostEnvironments: []string{"prod"}, Isolation: IsolationRemoteManaged,
		Egress:           Egress{Mode: EgressAllowlistedExternal, Allow: []string{"a.example.com", "10.0.0.0/8"}},
		Secrets:          []Secret{{Name: "S"}},
		ResultHandling:   ResultHandlingSpec{UntrustedContentFiltering: &no, BoundaryMarkers: &yes},
		ReplayProtection: ReplayNone,
		Tools: []ToolSpec{{Name: "t", RiskTier: TierRead, SideEffect: &se, Approval: &Approval{Mode: ApprovalAlways},
			TimeoutSeconds: &to, Idempotency: &idem}},
	}
	if diff := cmp.Diff(want, c, cmp.AllowUnexported(Contract{}), cmpIgnoreInput); diff != "" {
		t.Errorf("decoded contract (-want +got):\n%s", diff)
	}
}

var cmpIgnoreInput = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".input" }, cmp.Ignore())
