package contract

import (
	"fmt"
	"strconv"
)

var (
	tierRank     = map[RiskTier]int{TierRead: 0, TierWrite: 1, TierHighRiskExecution: 2}
	approvalRank = map[ApprovalMode]int{ApprovalNone: 0, ApprovalConditional: 1, ApprovalAlways: 2}
)

// toolWidenings compares every tool of next with the same tool in prev,
// or with StrictestTool when prev does not list it.
func toolWidenings(prev, next []Tool) []Widening {
	before := make(map[string]Tool, len(prev))
	for _, t := range prev {
		before[t.Name] = t
	}
	var ws []Widening
	for i, t := range next {
		base, known := before[t.Name]
		if !known {
			base = StrictestTool(t.Name)
		}
		tc := toolChange{base: base, next: t, at: "/tools/" + strconv.Itoa(i)}
		if !known {
			tc.note = " (new tool, compared with the strictest defaults)"
		}
		ws = append(ws, tc.widenings()...)
	}
	return ws
}

// toolChange is one tool before and after.
type toolChange struct {
	base, next Tool
	at         string // pointer to the tool in next
	note       string // said of a new tool
}

func (c toolChange) widenings() []Widening {
	var ws []Widening
	b, n := c.base, c.next
	if tierRank[n.RiskTier] < tierRank[b.RiskTier] {
		ws = append(ws, c.widening(KindToolTierLowered, "/riskTier",
			fmt.Sprintf("risk tier lowered from %s to %s", b.RiskTier, n.RiskTier), string(b.RiskTier), string(n.RiskTier)))
	}
	if b.SideEffect == SideEffectExternalWrite && n.SideEffect == SideEffectNone {
		ws = append(ws, c.widening(KindToolSideEffectRemoved, "/sideEffect",
			"side effect removed: hosts may now treat the tool as free of external writes (retry, cache)"))
	}
	if approvalRank[n.Approval.Mode] < approvalRank[b.Approval.Mode] {
		ws = append(ws, c.widening(KindToolApprovalWeakened, "/approval/mode",
			fmt.Sprintf("approval weakened from %s to %s", b.Approval.Mode, n.Approval.Mode), string(b.Approval.Mode), string(n.Approval.Mode)))
	} else if n.Approval.Mode == ApprovalConditional && b.Approval.Mode == ApprovalConditional && orNone(b.Approval.Rule) != orNone(n.Approval.Rule) {
		ws = append(ws, c.widening(KindToolApprovalRuleChanged, "/approval/rule",
			fmt.Sprintf("approval rule changed from %q to %q", orNone(b.Approval.Rule), orNone(n.Approval.Rule))))
	}
	if n.TimeoutSeconds > b.TimeoutSeconds {
		p, q := strconv.FormatInt(b.TimeoutSeconds, 10), strconv.FormatInt(n.TimeoutSeconds, 10)
		ws = append(ws, c.widening(KindToolTimeoutLonger, "/timeoutSeconds",
			fmt.Sprintf("timeout longer: %ss, was %ss", q, p), p, q))
	}
	if b.Idempotency == RequiresKey && n.Idempotency == Idempotent {
		ws = append(ws, c.widening(KindToolIdempotencyRelaxed, "/idempotency",
			"idempotency relaxed from requires_key to idempotent: retries no longer carry a caller-chosen key"))
	}
	return ws
}

func (c toolChange) widening(kind, member, msg string, values ...string) Widening {
	return widening(kind, c.next.Name, c.at+member, msg+c.note, append([]string{c.next.Name}, values...)...)
}
