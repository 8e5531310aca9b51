package contract

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
)

// KindNarrowingPrefix starts the kind of every narrowing: the widening's
// kind with "widening" replaced, e.g. contract.narrowing.scope_added is a
// scope removed. KindToolDropped is a tool the contract no longer lists.
const (
	KindNarrowingPrefix = "contract.narrowing."
	KindToolDropped     = KindNarrowingPrefix + "tool_dropped"
)

// narrowed says a reverse widening forwards: v are the values the
// widening of the reverse comparison (next to prev) names.
var narrowed = map[string]func(v []string) string{
	KindScopeAdded:              func(v []string) string { return fmt.Sprintf("token scope %q removed", at(v, 0)) },
	KindTokenTTLLonger:          func(v []string) string { return fmt.Sprintf("token lifetime shorter: %s, was %s", at(v, 0), at(v, 1)) },
	KindUserDelegationDropped:   func([]string) string { return "user delegation now required" },
	KindHostEnvironmentsOpened:  func([]string) string { return "host environments now restricted, were unrestricted" },
	KindHostEnvironmentAdded:    func(v []string) string { return fmt.Sprintf("host environment %q removed", at(v, 0)) },
	KindEgressWidened:           func(v []string) string { return fmt.Sprintf("egress narrowed from %s to %s", at(v, 1), at(v, 0)) },
	KindEgressHostAdded:         func(v []string) string { return fmt.Sprintf("egress destination %q removed", at(v, 0)) },
	KindSecretAdded:             func(v []string) string { return fmt.Sprintf("secret %q removed", at(v, 0)) },
	KindResultFilteringDisabled: func([]string) string { return "tool results now filtered as untrusted content" },
	KindBoundaryMarkersDisabled: func([]string) string { return "tool results now wrapped in boundary markers" },
	KindReplayProtectionWeakened: func(v []string) string {
		return fmt.Sprintf("replay protection strengthened from %s to %s", at(v, 1), at(v, 0))
	},
	KindToolTierLowered:        func(v []string) string { return fmt.Sprintf("risk tier raised from %s to %s", at(v, 2), at(v, 1)) },
	KindToolSideEffectRemoved:  func([]string) string { return "side effect now declared: external writes" },
	KindToolApprovalWeakened:   func(v []string) string { return fmt.Sprintf("approval strengthened from %s to %s", at(v, 2), at(v, 1)) },
	KindToolTimeoutLonger:      func(v []string) string { return fmt.Sprintf("timeout shorter: %ss, was %ss", at(v, 1), at(v, 2)) },
	KindToolIdempotencyRelaxed: func([]string) string { return "idempotency tightened from idempotent to requires_key" },
}

func at(v []string, i int) string {
	if i < len(v) {
		return v[i]
	}
	return ""
}

// Narrowings lists how next grants less than prev: each way going back
// from next to prev would widen, said in the forward direction, and each
// tool prev lists that next does not. A change the forward comparison
// already reports (an owner, isolation, auth mode, token audience or
// approval rule changed, a move between egress modes of one rank) is a
// widening only.
// Narrowings are informational (severity info) and need no
// acknowledgement; pointers refer to prev's JSON. Sorted like Widenings.
func Narrowings(prev, next Normalized) []finding.Finding {
	kept := make(map[string]bool, len(next.Tools))
	for _, t := range next.Tools {
		kept[t.Name] = true
	}
	var out []finding.Finding
	for i, t := range prev.Tools {
		if !kept[t.Name] {
			out = append(out, finding.Finding{Kind: KindToolDropped, Severity: finding.Info, Tool: t.Name,
				Pointer: fmt.Sprintf("/tools/%d", i), Message: "tool no longer in the contract"})
		}
	}
	forward := map[string]bool{}
	for _, w := range Widenings(prev, next) {
		forward[w.key()] = true
	}
	for _, w := range Widenings(next, prev) {
		say, ok := narrowed[w.Kind]
		if !ok || forward[w.key()] || (w.Tool != "" && !kept[w.Tool]) {
			continue
		}
		out = append(out, finding.Finding{Kind: KindNarrowingPrefix + strings.TrimPrefix(w.Kind, "contract.widening."),
			Severity: finding.Info, Tool: w.Tool, Pointer: w.Pointer, Message: say(w.values)})
	}
	slices.SortFunc(out, func(a, b finding.Finding) int {
		return cmp.Or(strings.Compare(a.Tool, b.Tool), strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Kind, b.Kind))
	})
	return out
}

// key identifies a change whichever direction it was found in: the kind,
// the tool and the values in sorted order.
func (w Widening) key() string {
	vs := slices.Clone(w.values)
	slices.Sort(vs)
	return w.Kind + "\x00" + w.Tool + "\x00" + strings.Join(vs, "\x00")
}
