package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpreg/mcpreg/finding"
)

// Kinds of the findings Check reports.
const (
	KindOAuthWithoutScopes       = "contract.oauth_without_scopes"
	KindTokenTTLOverMax          = "contract.token_ttl_over_max"
	KindHighRiskWithoutApproval  = "contract.high_risk_without_approval"
	KindHighRiskConditional      = "contract.high_risk_conditional_approval"
	KindHighRiskNetwork          = "contract.high_risk_network"
	KindWriteWithoutIdempotency  = "contract.write_without_idempotency"
	KindReadWithSideEffect       = "contract.read_with_side_effect"
	KindSecretValueLike          = "contract.secret_value_like"
	KindAnnotationContradictTier = "contract.annotation_contradicts_tier"
	KindUnknownTool              = "contract.unknown_tool"
	KindToolDefaulted            = "contract.tool_defaulted"
)

// DefaultMaxTokenTTL is CheckOptions.MaxTokenTTL when left zero.
const DefaultMaxTokenTTL = 24 * time.Hour

// CheckOptions tune Check.
type CheckOptions struct {
	// MaxTokenTTL is the longest token lifetime accepted without a
	// finding; zero means DefaultMaxTokenTTL.
	MaxTokenTTL time.Duration
}

// ToolFacts is one tool of the version's snapshot.
type ToolFacts struct {
	Name string
	// Raw is the tool's JSON object exactly as received in tools/list;
	// Check reads its "annotations".
	Raw []byte
}

// Check runs the submission checks of contract c (Default() for a version
// without one) against the snapshot's tools and returns the findings,
// sorted by finding.Sort. It takes the contract as submitted, not
// normalised, because some checks are about what the document left out or
// named: entries for tools the snapshot lacks, write tools without an
// idempotency rule. Pointers refer to c.InputJSON(); findings about one
// tool name it, and contract.tool_defaulted, about a tool without an
// entry, has an empty pointer.
func Check(c *Contract, tools []ToolFacts, opts CheckOptions) []finding.Finding {
	if opts.MaxTokenTTL <= 0 {
		opts.MaxTokenTTL = DefaultMaxTokenTTL
	}
	names := make([]string, len(tools))
	raws := make(map[string][]byte, len(tools))
	for i, t := range tools {
		names[i] = t.Name
		raws[t.Name] = t.Raw
	}
	n := c.Normalize(names)
	var fs []finding.Finding
	fs = append(fs, checkAuth(n, opts)...)
	fs = append(fs, checkSecrets(c)...)
	fs = append(fs, checkUnknownTools(c, raws)...)
	idx := c.toolIndex()
	for _, t := range n.Tools {
		i, declared := idx[t.Name]
		if !declared {
			fs = append(fs, checkDefaultedTool(n, t)...)
			continue
		}
		fs = append(fs, checkTool(n, t, &c.Tools[i], pointer("tools", strconv.Itoa(i)), raws[t.Name])...)
	}
	finding.Sort(fs)
	return fs
}

func checkAuth(n Normalized, opts CheckOptions) []finding.Finding {
	var fs []finding.Finding
	if n.Auth.Mode.IsOAuth() && len(n.Auth.Scopes) == 0 {
		fs = append(fs, finding.Finding{
			Kind: KindOAuthWithoutScopes, Severity: finding.High, Pointer: "/auth",
			Message: fmt.Sprintf("auth mode %s declares no token scopes: the token would carry whatever the authorization server grants by default", n.Auth.Mode),
		})
	}
	ttl := n.Auth.TokenTTLSeconds
	switch {
	case n.Auth.Mode == AuthNone:
	case ttl == nil:
		fs = append(fs, finding.Finding{
			Kind: KindTokenTTLOverMax, Severity: finding.Medium, Pointer: "/auth",
			Message: fmt.Sprintf("auth mode %s declares no token lifetime: the credential does not expire (maximum %s)", n.Auth.Mode, opts.MaxTokenTTL),
		})
	case time.Duration(*ttl)*time.Second > opts.MaxTokenTTL:
		fs = append(fs, finding.Finding{
			Kind: KindTokenTTLOverMax, Severity: finding.Medium, Pointer: "/auth/tokenTtl",
			Message:  fmt.Sprintf("token lifetime %s is over the maximum of %s", time.Duration(*ttl)*time.Second, opts.MaxTokenTTL),
			Evidence: strconv.FormatInt(*ttl, 10) + "s",
		})
	}
	return fs
}

func checkSecrets(c *Contract) []finding.Finding {
	var fs []finding.Finding
	for i, s := range c.Secrets {
		if why := valueLike(s.Name); why != "" {
			fs = append(fs, finding.Finding{
				Kind: KindSecretValueLike, Severity: finding.Critical, Pointer: pointer("secrets", strconv.Itoa(i), "name"),
				Message:  "secret name looks like a credential value (" + why + "): name secrets by reference, never by value; rotate the credential if it is real",
				Evidence: redact(s.Name),
			})
		}
	}
	return fs
}

func checkUnknownTools(c *Contract, snapshot map[string][]byte) []finding.Finding {
	var fs []finding.Finding
	for i, t := range c.Tools {
		if _, ok := snapshot[t.Name]; !ok {
			fs = append(fs, finding.Finding{
				Kind: KindUnknownTool, Severity: finding.Medium, Tool: t.Name, Pointer: pointer("tools", strconv.Itoa(i), "name"),
				Message: "the contract has an entry for a tool the snapshot does not have",
			})
		}
	}
	return fs
}

// checkDefaultedTool reports a tool of the snapshot without an entry.
func checkDefaultedTool(n Normalized, t Tool) []finding.Finding {
	fs := []finding.Finding{{
		Kind: KindToolDefaulted, Severity: finding.Info, Tool: t.Name,
		Message: "no contract entry: the strictest defaults apply (high_risk_execution, approval always, timeout " +
			strconv.Itoa(DefaultTimeoutSeconds) + "s, idempotency key required)",
	}}
	return append(fs, checkHighRiskNetwork(n, t, "")...)
}

// checkTool runs the per-tool checks on a tool with an entry at "at".
func checkTool(n Normalized, t Tool, spec *ToolSpec, at string, raw []byte) []finding.Finding {
	var fs []finding.Finding
	fs = append(fs, checkHighRiskApproval(t, spec, at)...)
	fs = append(fs, checkHighRiskNetwork(n, t, at)...)
	if t.RiskTier != TierRead && spec.Idempotency == nil {
		fs = append(fs, finding.Finding{
			Kind: KindWriteWithoutIdempotency, Severity: finding.Medium, Tool: t.Name, Pointer: at,
			Message: fmt.Sprintf("%s tool without an idempotency rule: hosts will require a caller-chosen key (requires_key)", t.RiskTier),
		})
	}
	if t.RiskTier == TierRead && t.SideEffect == SideEffectExternalWrite {
		fs = append(fs, finding.Finding{
			Kind: KindReadWithSideEffect, Severity: finding.Medium, Tool: t.Name, Pointer: at + "/sideEffect",
			Message: "tool declared read but with an external_write side effect",
		})
	}
	return append(fs, checkAnnotations(t, raw, at)...)
}

func checkHighRiskApproval(t Tool, spec *ToolSpec, at string) []finding.Finding {
	if t.RiskTier != TierHighRiskExecution || spec.Approval == nil {
		return nil
	}
	switch t.Approval.Mode {
	case ApprovalNone:
		return []finding.Finding{{
			Kind: KindHighRiskWithoutApproval, Severity: finding.High, Tool: t.Name, Pointer: at + "/approval",
			Message: "high-risk execution tool without approval",
		}}
	case ApprovalConditional:
		return []finding.Finding{{
			Kind: KindHighRiskConditional, Severity: finding.Medium, Tool: t.Name, Pointer: at + "/approval/rule",
			Message:  "high-risk execution tool approved only conditionally: check that the rule covers every dangerous call",
			Evidence: abbreviate(valueOr(t.Approval.Rule, ""), 200),
		}}
	}
	return nil
}

// checkHighRiskNetwork flags a high-risk tool on a server whose egress is
// not denied; at is "" for a tool without an entry.
func checkHighRiskNetwork(n Normalized, t Tool, at string) []finding.Finding {
	if t.RiskTier != TierHighRiskExecution || n.Egress.Mode == EgressDenied {
		return nil
	}
	msg := fmt.Sprintf("high-risk execution tool on a server with egress %s: high-risk execution needs network denied", n.Egress.Mode)
	if at == "" {
		msg += " (the tool has no entry, so it defaults to high_risk_execution)"
	}
	return []finding.Finding{{
		Kind: KindHighRiskNetwork, Severity: finding.High, Tool: t.Name, Pointer: "/egress/mode", Message: msg,
	}}
}

// checkAnnotations compares the tool's own hints with its declared tier:
// readOnlyHint true on a write or high-risk tool, destructiveHint true on
// a read tool.
func checkAnnotations(t Tool, raw []byte, at string) []finding.Finding {
	hints := booleanAnnotations(raw)
	var fs []finding.Finding
	if ro, ok := hints["readOnlyHint"]; ok && ro && t.RiskTier != TierRead {
		fs = append(fs, finding.Finding{
			Kind: KindAnnotationContradictTier, Severity: finding.High, Tool: t.Name, Pointer: at + "/riskTier",
			Message:  fmt.Sprintf("the tool says readOnlyHint: true but the contract declares it %s", t.RiskTier),
			Evidence: `"annotations": {"readOnlyHint": true}`,
		})
	}
	if d, ok := hints["destructiveHint"]; ok && d && t.RiskTier == TierRead {
		fs = append(fs, finding.Finding{
			Kind: KindAnnotationContradictTier, Severity: finding.High, Tool: t.Name, Pointer: at + "/riskTier",
			Message:  "the tool says destructiveHint: true but the contract declares it read",
			Evidence: `"annotations": {"destructiveHint": true}`,
		})
	}
	return fs
}

// booleanAnnotations returns the boolean members of a raw tool's
// "annotations" object; anything else is ignored.
func booleanAnnotations(raw []byte) map[string]bool {
	var tool struct {
		Annotations map[string]json.RawMessage `json:"annotations"`
	}
	if json.Unmarshal(raw, &tool) != nil {
		return nil
	}
	out := map[string]bool{}
	for k, v := range tool.Annotations {
		if s := string(bytes.TrimSpace(v)); s == "true" || s == "false" {
			out[k] = s == "true"
		}
	}
	return out
}
