package contract

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/finding"
)

// benign is a contract none of the checks should flag, for tools
// read_docs, file_ticket and run_job.
const benign = `
contractVersion: mcpreg.contract/v1
owner: team
auth: {mode: delegated_oauth, tokenAudience: "https://r.example", scopes: [docs.read], tokenTtl: 15m}
isolation: remote_ephemeral_sandbox
secrets: [{name: vault:kv/prod/ticketing/api-key}, {name: OPENAI_API_KEY}]
tools:
  - {name: read_docs, riskTier: read, approval: none}
  - {name: file_ticket, riskTier: write, idempotency: requires_key}
  - {name: run_job, riskTier: high_risk_execution, approval: always, idempotency: requires_key}
`

var benignTools = []ToolFacts{
	{Name: "read_docs", Raw: []byte(`{"name":"read_docs","annotations":{"readOnlyHint":true,"destructiveHint":false}}`)},
	{Name: "file_ticket", Raw: []byte(`{"name":"file_ticket","annotations":{"readOnlyHint":false,"destructiveHint":true}}`)},
	{Name: "run_job", Raw: []byte(`{"name":"run_job"}`)},
}

func kinds(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

func TestCheckBenignContractHasNoFindings(t *testing.T) {
	if fs := Check(mustParse(t, benign), benignTools, CheckOptions{}); len(fs) != 0 {
		t.Errorf("findings on a benign contract: %v", fs)
	}
}

func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		from, to  string // edit of the benign contract
		tools     []ToolFacts
		opts      CheckOptions
		kind      string
		severity  finding.Severity
		tool, ptr string
	}{
		{"OAuth without scopes", "scopes: [docs.read], ", "", nil, CheckOptions{}, KindOAuthWithoutScopes, finding.High, "", "/auth"},
		{"OAuth with empty scopes", "scopes: [docs.read]", "scopes: []", nil, CheckOptions{}, KindOAuthWithoutScopes, finding.High, "", "/auth"},
		{"TTL over the default maximum", "tokenTtl: 15m", "tokenTtl: 25h", nil, CheckOptions{}, KindTokenTTLOverMax, finding.Medium, "", "/auth/tokenTtl"},
		{"TTL over a configured maximum", "tokenTtl: 15m", "tokenTtl: 20m", nil, CheckOptions{MaxTokenTTL: 10 * time.Minute}, KindTokenTTLOverMax, finding.Medium, "", "/auth/tokenTtl"},
		{"API key without a lifetime", `mode: delegated_oauth, tokenAudience: "https://r.example", scopes: [docs.read], tokenTtl: 15m`, "mode: api_key", nil, CheckOptions{}, KindTokenTTLOverMax, finding.Medium, "", "/auth"},
		{"high-risk without approval", "approval: always, idempotency", "approval: none, idempotency", nil, CheckOptions{}, KindHighRiskWithoutApproval, finding.High, "run_job", "/tools/2/approval"},
		{"high-risk with conditional approval", "approval: always, idempotency", "approval: {mode: conditional, rule: r}, idempotency", nil, CheckOptions{}, KindHighRiskConditional, finding.Medium, "run_job", "/tools/2/approval/rule"},
		{"high-risk with network", "isolation: remote_ephemeral_sandbox", "isolation: remote_ephemeral_sandbox\negress: {mode: internal_only}", nil, CheckOptions{}, KindHighRiskNetwork, finding.High, "run_job", "/egress/mode"},
		{"undeclared tool with network", "isolation: remote_ephemeral_sandbox", "isolation: remote_ephemeral_sandbox\negress: {mode: brokered_gateway}",
			append(slices.Clone(benignTools), ToolFacts{Name: "extra", Raw: []byte(`{"name":"extra"}`)}), CheckOptions{}, KindHighRiskNetwork, finding.High, "extra", "/egress/mode"},
		{"write without idempotency", "riskTier: write, idempotency: requires_key", "riskTier: write", nil, CheckOptions{}, KindWriteWithoutIdempotency, finding.Medium, "file_ticket", "/tools/1"},
		{"read with a side effect", "riskTier: read, approval: none", "riskTier: read, approval: none, sideEffect: external_write", nil, CheckOptions{}, KindReadWithSideEffect, finding.Medium, "read_docs", "/tools/0/sideEffect"},
		{"secret named by an API key", "name: OPENAI_API_KEY", "name: sk-proj-4f9Kx2LmQ8vR1tY6wE3uI0oP7aS5dF", nil, CheckOptions{}, KindSecretValueLike, finding.Critical, "", "/secrets/1/name"},
		{"readOnlyHint on a write tool", "", "", []ToolFacts{benignTools[0], {Name: "file_ticket", Raw: []byte(`{"name":"file_ticket","annotations":{"readOnlyHint":true}}`)}, benignTools[2]},
			CheckOptions{}, KindAnnotationContradictTier, finding.High, "file_ticket", "/tools/1/riskTier"},
		{"readOnlyHint on a high-risk tool", "", "", []ToolFacts{benignTools[0], benignTools[1], {Name: "run_job", Raw: []byte(`{"name":"run_job","annotations":{"readOnlyHint":true}}`)}},
			CheckOptions{}, KindAnnotationContradictTier, finding.High, "run_job", "/tools/2/riskTier"},
		{"destructiveHint on a read tool", "", "", []ToolFacts{{Name: "read_docs", Raw: []byte(`{"name":"read_docs","annotations":{"destructiveHint":true}}`)}, benignTools[1], benignTools[2]},
			CheckOptions{}, KindAnnotationContradictTier, finding.High, "read_docs", "/tools/0/riskTier"},
		{"entry for a tool the snapshot lacks", "", "", benignTools[:2], CheckOptions{}, KindUnknownTool, finding.Medium, "run_job", "/tools/2/name"},
		{"snapshot tool without an entry", "", "", append(slices.Clone(benignTools), ToolFacts{Name: "extra"}), CheckOptions{}, KindToolDefaulted, finding.Info, "extra", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := benign
			if tc.from != "" {
				if !strings.Contains(doc, tc.from) {
					t.Fatalf("edit %q does not apply", tc.from)
				}
				doc = strings.Replace(doc, tc.from, tc.to, 1)
			}
			tools := tc.tools
			if tools == nil {
				tools = benignTools
			}
			fs := Check(mustParse(t, doc), tools, tc.opts)
			if tc.tool == "extra" { // the extra tool also gets the info finding, run_job the network one
				fs = slices.DeleteFunc(fs, func(f finding.Finding) bool { return f.Kind != tc.kind || f.Tool != tc.tool })
			}
			if len(fs) != 1 {
				t.Fatalf("want exactly one finding, got %v", fs)
			}
			f := fs[0]
			if f.Kind != tc.kind || f.Severity != tc.severity || f.Tool != tc.tool || f.Pointer != tc.ptr || f.Message == "" {
				t.Errorf("got %+v, want kind %s severity %s tool %q pointer %q", f, tc.kind, tc.severity, tc.tool, tc.ptr)
			}
		})
	}
}

func TestCheckNeverEchoesASecretValue(t *testing.T) {
	value := "ghp_" + strings.Repeat("aB3dE9fG2h", 4)
	fs := Check(mustParse(t, strings.Replace(benign, "name: OPENAI_API_KEY", "name: "+value, 1)), benignTools, CheckOptions{})
	if len(fs) != 1 || strings.Contains(fmt.Sprint(fs), value[4:]) {
		t.Errorf("findings = %v", fs)
	}
}

func TestCheckDefaultContract(t *testing.T) {
	fs := Check(Default(), benignTools, CheckOptions{})
	if got := kinds(fs); !slices.Equal(got, []string{KindToolDefaulted, KindToolDefaulted, KindToolDefaulted}) {
		t.Errorf("default contract findings = %v", got)
	}
}

func TestCheckIgnoresNonBooleanHints(t *testing.T) {
	tools := []ToolFacts{
		{Name: "read_docs", Raw: []byte(`{"name":"read_docs","annotations":{"destructiveHint":"true","readOnlyHint":null}}`)},
		{Name: "file_ticket", Raw: []byte(`{"name":"file_ticket","annotations":{"readOnlyHint":1}}`)},
		{Name: "run_job", Raw: []byte(`not json`)},
	}
	if fs := Check(mustParse(t, benign), tools, CheckOptions{}); len(fs) != 0 {
		t.Errorf("findings = %v", fs)
	}
}
