package contract

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
)

// Kinds of the findings Widenings reports, all of high severity.
const (
	KindOwnerChanged             = "contract.widening.owner_changed"
	KindAuthModeChanged          = "contract.widening.auth_mode_changed"
	KindTokenAudienceChanged     = "contract.widening.token_audience_changed"
	KindIsolationChanged         = "contract.widening.isolation_changed"
	KindScopeAdded               = "contract.widening.scope_added"
	KindTokenTTLLonger           = "contract.widening.token_ttl_longer"
	KindUserDelegationDropped    = "contract.widening.user_delegation_dropped"
	KindHostEnvironmentsOpened   = "contract.widening.host_environments_unrestricted"
	KindHostEnvironmentAdded     = "contract.widening.host_environment_added"
	KindEgressWidened            = "contract.widening.egress_widened"
	KindEgressHostAdded          = "contract.widening.egress_host_added"
	KindSecretAdded              = "contract.widening.secret_added"
	KindResultFilteringDisabled  = "contract.widening.result_filtering_disabled"
	KindBoundaryMarkersDisabled  = "contract.widening.boundary_markers_disabled"
	KindReplayProtectionWeakened = "contract.widening.replay_protection_weakened"
	KindToolTierLowered          = "contract.widening.tool_tier_lowered"
	KindToolSideEffectRemoved    = "contract.widening.tool_side_effect_removed"
	KindToolApprovalWeakened     = "contract.widening.tool_approval_weakened"
	KindToolApprovalRuleChanged  = "contract.widening.tool_approval_rule_changed"
	KindToolTimeoutLonger        = "contract.widening.tool_timeout_longer"
	KindToolIdempotencyRelaxed   = "contract.widening.tool_idempotency_relaxed"
)

// Widening is one way a contract grants more than the previous approved
// one, or a change of owner, auth mode, token audience or isolation. A
// reviewer approving the version must acknowledge each by ID.
type Widening struct {
	// ID is stable and specific: the kind without its "contract.widening."
	// prefix, then the subject and the values involved, separated by ":"
	// (":" and "%" inside values are written %3A and %25). The same change
	// between the same two contracts always has the same ID, e.g.
	// "scope_added:repo:write" or "tool_timeout_longer:run_shell:10:60".
	ID string `json:"id"`
	finding.Finding
	// values are the subject and values the ID names, unescaped.
	values []string
}

// Unacknowledged returns the widenings whose ID is not in acked.
func Unacknowledged(ws []Widening, acked []string) []Widening {
	var out []Widening
	for _, w := range ws {
		if !slices.Contains(acked, w.ID) {
			out = append(out, w)
		}
	}
	return out
}

// Widenings compares the contract of the previous approved version with
// the next one and lists every widening (see docs/contract.md for the order of
// each member), sorted by tool ("" first), pointer and ID. Pointers refer
// to next's JSON. A tool that prev does not list is compared with
// StrictestTool: a new tool is not a widening by itself, but a new tool
// declared looser than the strictest defaults is.
func Widenings(prev, next Normalized) []Widening {
	var ws []Widening
	ws = append(ws, identityChanges(prev, next)...)
	ws = append(ws, authWidenings(prev.Auth, next.Auth)...)
	ws = append(ws, environmentWidenings(prev.HostEnvironments, next.HostEnvironments)...)
	ws = append(ws, egressWidenings(prev.Egress, next.Egress)...)
	ws = append(ws, secretWidenings(prev.Secrets, next.Secrets)...)
	ws = append(ws, handlingWidenings(prev, next)...)
	ws = append(ws, toolWidenings(prev.Tools, next.Tools)...)
	slices.SortFunc(ws, func(a, b Widening) int {
		return cmp.Or(strings.Compare(a.Tool, b.Tool), strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.ID, b.ID))
	})
	return ws
}

// widening builds a Widening of kind; parts name the subject and values.
func widening(kind, tool, ptr, msg string, parts ...string) Widening {
	id := strings.TrimPrefix(kind, "contract.widening.")
	for _, p := range parts {
		id += ":" + idEscaper.Replace(p)
	}
	return Widening{ID: id, Finding: finding.Finding{Kind: kind, Severity: finding.High, Tool: tool, Pointer: ptr, Message: msg}, values: parts}
}

var idEscaper = strings.NewReplacer("%", "%25", ":", "%3A")

func identityChanges(prev, next Normalized) []Widening {
	var ws []Widening
	if p, n := orNone(prev.Owner), orNone(next.Owner); p != n {
		ws = append(ws, widening(KindOwnerChanged, "", "/owner", fmt.Sprintf("owner changed from %s to %s", p, n), p, n))
	}
	if p, n := prev.Isolation, next.Isolation; p != n {
		ws = append(ws, widening(KindIsolationChanged, "", "/isolation", fmt.Sprintf("isolation profile changed from %s to %s", p, n), string(p), string(n)))
	}
	return ws
}

func authWidenings(prev, next Auth) []Widening {
	var ws []Widening
	if prev.Mode != next.Mode {
		ws = append(ws, widening(KindAuthModeChanged, "", "/auth/mode",
			fmt.Sprintf("auth mode changed from %s to %s", prev.Mode, next.Mode), string(prev.Mode), string(next.Mode)))
	}
	if p, n := orNone(prev.TokenAudience), orNone(next.TokenAudience); p != n {
		ws = append(ws, widening(KindTokenAudienceChanged, "", "/auth/tokenAudience",
			fmt.Sprintf("token audience changed from %s to %s", p, n), p, n))
	}
	for _, s := range added(prev.Scopes, next.Scopes) {
		ws = append(ws, widening(KindScopeAdded, "", "/auth/scopes", fmt.Sprintf("token scope %q added", s), s))
	}
	if next.Mode != AuthNone && ttlLonger(prev.TokenTTLSeconds, next.TokenTTLSeconds) {
		p, n := ttlText(prev.TokenTTLSeconds), ttlText(next.TokenTTLSeconds)
		ws = append(ws, widening(KindTokenTTLLonger, "", "/auth/tokenTtlSeconds",
			fmt.Sprintf("token lifetime longer: %s, was %s", n, p), p, n))
	}
	if prev.UserDelegationRequired && !next.UserDelegationRequired && next.Mode != AuthNone {
		ws = append(ws, widening(KindUserDelegationDropped, "", "/auth/userDelegationRequired",
			"user delegation no longer required: calls may run on the platform's authority alone"))
	}
	return ws
}

// ttlLonger reports whether next outlives prev; nil lives forever.
func ttlLonger(prev, next *int64) bool {
	switch {
	case prev == nil:
		return false
	case next == nil:
		return true
	}
	return *next > *prev
}

func ttlText(ttl *int64) string {
	if ttl == nil {
		return "unbounded"
	}
	return strconv.FormatInt(*ttl, 10) + "s"
}

func environmentWidenings(prev, next HostEnvironments) []Widening {
	switch {
	case !prev.Restricted:
		return nil
	case !next.Restricted:
		return []Widening{widening(KindHostEnvironmentsOpened, "", "/hostEnvironments/restricted",
			"host environments no longer restricted: any host environment may connect, was only "+strings.Join(prev.Allow, ", "))}
	}
	var ws []Widening
	for _, l := range added(prev.Allow, next.Allow) {
		ws = append(ws, widening(KindHostEnvironmentAdded, "", "/hostEnvironments/allow", fmt.Sprintf("host environment %q added", l), l))
	}
	return ws
}

// egressRank orders egress modes; brokered_gateway and allowlisted_external
// share a rank but are not comparable: moving between them widens.
var egressRank = map[EgressMode]int{EgressDenied: 0, EgressInternalOnly: 1, EgressBrokeredGateway: 2, EgressAllowlistedExternal: 2}

func egressWidenings(prev, next Egress) []Widening {
	var ws []Widening
	if prev.Mode != next.Mode && egressRank[next.Mode] >= egressRank[prev.Mode] {
		ws = append(ws, widening(KindEgressWidened, "", "/egress/mode",
			fmt.Sprintf("egress widened from %s to %s", prev.Mode, next.Mode), string(prev.Mode), string(next.Mode)))
	}
	for _, h := range added(prev.Allow, next.Allow) {
		ws = append(ws, widening(KindEgressHostAdded, "", "/egress/allow", fmt.Sprintf("egress destination %q added", h), h))
	}
	return ws
}

func secretWidenings(prev, next []Secret) []Widening {
	name := func(s Secret) string { return s.Name }
	var ws []Widening
	for _, s := range added(mapSlice(prev, name), mapSlice(next, name)) {
		ws = append(ws, widening(KindSecretAdded, "", "/secrets", fmt.Sprintf("secret %q added", s), s))
	}
	return ws
}

var replayRank = map[ReplayProtection]int{ReplayNone: 0, ReplayNonce: 1, ReplayNonceAndTraceBoundSignature: 2}

func handlingWidenings(prev, next Normalized) []Widening {
	var ws []Widening
	if prev.ResultHandling.UntrustedContentFiltering && !next.ResultHandling.UntrustedContentFiltering {
		ws = append(ws, widening(KindResultFilteringDisabled, "", "/resultHandling/untrustedContentFiltering",
			"tool results no longer filtered as untrusted content"))
	}
	if prev.ResultHandling.BoundaryMarkers && !next.ResultHandling.BoundaryMarkers {
		ws = append(ws, widening(KindBoundaryMarkersDisabled, "", "/resultHandling/boundaryMarkers",
			"tool results no longer wrapped in boundary markers"))
	}
	if p, n := prev.ReplayProtection, next.ReplayProtection; replayRank[n] < replayRank[p] {
		ws = append(ws, widening(KindReplayProtectionWeakened, "", "/replayProtection",
			fmt.Sprintf("replay protection weakened from %s to %s", p, n), string(p), string(n)))
	}
	return ws
}

// added returns the members of next missing from prev, in next's order.
func added(prev, next []string) []string {
	var out []string
	for _, s := range next {
		if !slices.Contains(prev, s) {
			out = append(out, s)
		}
	}
	return out
}

func mapSlice[T, U any](s []T, f func(T) U) []U {
	out := make([]U, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

func orNone(s *string) string {
	if s == nil {
		return "(none)"
	}
	return *s
}
