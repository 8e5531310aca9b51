package hostclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/pin"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
	"github.com/mcpreg/mcpreg/scan"
)

// Policy is what a host tolerates.
type Policy struct {
	// BlockWarn blocks warn-class drift too, instead of reporting it.
	BlockWarn bool
}

// Verdict is what a host does with a server.
type Verdict string

// Verdicts.
const (
	Allow Verdict = "allow" // expose the server
	Warn  Verdict = "warn"  // expose it, and report the drift
	// Partial exposes the server without its blocked tools (see
	// Decision.ToolAllowed): they differ from the signed pins.
	Partial Verdict = "partial"
	Block   Verdict = "block" // do not expose it
)

// Registry answers of a connect-time check (CheckConnectionResponse).
const (
	checkAllowed     = "allowed"
	checkDrifted     = "drifted"
	actionQuarantine = "quarantine"
	actionWarn       = "warn"
)

// Decision is the outcome of Gate.
type Decision struct {
	Verdict Verdict `json:"verdict"`
	// Action is the registry's action for the drift (quarantine, warn) when
	// it was asked.
	Action string `json:"action,omitempty"`
	Reason string `json:"reason"`
	// Tools are the per-tool details: the local status, and the registry's
	// verdict, classes and severity when it was asked.
	Tools []ToolDecision `json:"tools"`
	// ToolDefinitionHash is the served tools' hash (see Comparison).
	ToolDefinitionHash string `json:"toolDefinitionHash,omitempty"`
	// Comparison is the local comparison Tools was built from.
	Comparison Comparison `json:"-"`
	// Check is the registry's answer; nil when the local comparison matched
	// or the check failed.
	Check *mcpregv1.CheckConnectionResponse `json:"-"`
}

// ToolDecision is one tool's part of a Decision.
type ToolDecision struct {
	ToolComparison
	// Blocked is set on a served tool whose definition the signed pins do
	// not cover (changed or added), whatever the registry answered.
	Blocked  bool     `json:"blocked,omitempty"`
	Verdict  string   `json:"verdict,omitempty"`
	Classes  []string `json:"classes,omitempty"`
	Severity string   `json:"severity,omitempty"`
	Action   string   `json:"action,omitempty"`
}

// Gate decides about a server the host read (snap, from package scan) that
// stands for entry e. A local match with the pins is allowed without the
// network. Otherwise the signed pins decide per tool: a served tool whose
// definition they do not cover (changed, or added) is blocked whatever the
// registry's unsigned answer says, and the server's other tools stay
// usable (Partial); changed instructions, which every tool shares, block
// the server. The registry's connect-time check can only add to that:
// quarantine-class drift blocks the server, and an answer the client does
// not know (an empty or unknown action or verdict) or a failed check
// blocks it too: the host fails closed. Warn is left for differences no
// pin covers, such as a removed tool (blocked too under p.BlockWarn).
func (c *Client) Gate(ctx context.Context, e discovery.Entry, snap *scan.Snapshot, p Policy) Decision {
	if snap == nil || snap.Tools == nil {
		return Decision{Verdict: Block, Reason: "no tools were read from the server"}
	}
	served, err := snap.ModelList()
	if err != nil {
		return Decision{Verdict: Block, Reason: "what the server listed cannot be read: " + err.Error()}
	}
	cmp := Compare(e, served)
	d := Decision{Comparison: cmp, Tools: toolDecisions(cmp, nil), ToolDefinitionHash: cmp.ToolDefinitionHash}
	if cmp.Match {
		d.Verdict, d.Reason = Allow, "every tool matches the pins"
		return d
	}
	observed := snap.ToolsFile
	if e.Pins.SpecVersion == pin.SpecVersionV2 { // the registry compares prompts too
		observed = snap.ModelFile()
	}
	resp, err := c.Check(ctx, e.Name, e.Version, observed, snap.InitializeResult)
	if err != nil {
		d.Verdict, d.Reason = Block, fmt.Sprintf("%s; the registry's check failed: %v", cmp.Summary(), err)
		return d
	}
	d.Check, d.Action, d.Tools = resp, resp.GetAction(), toolDecisions(cmp, resp.GetTools())
	d.Verdict, d.Reason = judge(resp, p)
	if d.Verdict != Block {
		d.Verdict, d.Reason = pinned(d.Verdict, d.Reason, cmp, d.Tools)
	}
	d.Reason = cmp.Summary() + "; " + d.Reason
	return d
}

// ToolAllowed reports whether the host may expose the served tool name:
// the server is not blocked, and the tool is served and not blocked.
func (d Decision) ToolAllowed(name string) bool {
	if d.Verdict != Allow && d.Verdict != Warn && d.Verdict != Partial {
		return false
	}
	for _, t := range d.Tools {
		if t.Name == name {
			return !t.Blocked && t.Status != ToolRemoved && t.Status != ToolOutOfScope
		}
	}
	return false
}

// BlockedTools names the served tools d blocks, in name order.
func (d Decision) BlockedTools() []string {
	var out []string
	for _, t := range d.Tools {
		if t.Blocked {
			out = append(out, t.Name)
		}
	}
	return out
}

// judge turns the registry's answer into a verdict and a reason. Only the
// answers it knows let a server through.
func judge(resp *mcpregv1.CheckConnectionResponse, p Policy) (Verdict, string) {
	msg := resp.GetMessage()
	switch {
	case resp.GetVerdict() == checkDrifted && resp.GetAction() == actionQuarantine:
		return Block, "registry: " + msg
	case resp.GetVerdict() == checkDrifted && resp.GetAction() == actionWarn:
		if p.BlockWarn {
			return Block, "registry (warn-class drift, blocked by policy): " + msg
		}
		return Warn, "registry (warn-class drift): " + msg
	case resp.GetVerdict() == checkAllowed:
		// The registry accepts what the host's signed pins do not (say it
		// re-pinned since): report it; the next resolve settles it.
		if p.BlockWarn {
			return Block, "registry says allowed, but the signed pins differ (blocked by policy); resolve again"
		}
		return Warn, "registry says allowed, but the signed pins differ; resolve again"
	}
	return Block, fmt.Sprintf("registry verdict %q action %q (not one this host knows: blocked): %s", resp.GetVerdict(), resp.GetAction(), msg)
}

// pinned applies the signed pins to a verdict the registry's answer
// allowed: what they do not cover is blocked, per tool where it is one
// tool's definition.
func pinned(v Verdict, reason string, cmp Comparison, tools []ToolDecision) (Verdict, string) {
	switch {
	case cmp.Problem != "":
		return Block, reason + "; blocked: the served tools cannot be pinned"
	case cmp.InstructionsChanged:
		return Block, reason + "; blocked: the instructions differ from the signed pins"
	case cmp.PromptsChanged:
		// Prompts are pinned as one hash: which prompt moved is not
		// known here, so none is trusted.
		return Block, reason + "; blocked: the prompts differ from the signed pins"
	}
	var blocked []string
	served := 0
	for _, t := range tools {
		if t.Status != ToolRemoved && t.Status != ToolOutOfScope {
			served++
		}
		if t.Blocked {
			blocked = append(blocked, t.Name)
		}
	}
	switch {
	case len(blocked) == 0:
		return v, reason
	case len(blocked) == served:
		return Block, reason + "; blocked: no served tool matches the signed pins"
	}
	return Partial, reason + "; tools blocked (they differ from the signed pins): " + strings.Join(blocked, ", ")
}

// toolDecisions joins the local comparison with the registry's per-tool
// verdicts.
func toolDecisions(cmp Comparison, verdicts []*mcpregv1.ToolVerdict) []ToolDecision {
	byName := map[string]*mcpregv1.ToolVerdict{}
	for _, v := range verdicts {
		byName[v.GetName()] = v
	}
	out := make([]ToolDecision, 0, len(cmp.Tools))
	for _, t := range cmp.Tools {
		td := ToolDecision{ToolComparison: t, Blocked: t.Status == ToolChanged || t.Status == ToolAdded}
		if v := byName[t.Name]; v != nil {
			td.Verdict, td.Classes, td.Severity, td.Action = v.GetVerdict(), v.GetClasses(), v.GetSeverity(), v.GetAction()
		}
		out = append(out, td)
	}
	return out
}
