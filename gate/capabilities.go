package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capabilityRules say, by capability name, whether the gate relays a
// capability ("") or why it withholds it. A name not listed is withheld as
// unknown: the gate relays only what it knows how to enforce.
type capabilityRules map[string]string

// notDefined is why the gate withholds experimental capabilities and
// extensions: their meaning is set outside the protocol, so no rule of the
// gate covers what they let the other side send.
const notDefined = "defined outside the protocol: the gate cannot enforce it"

// clientRules cover the members of the Go SDK's ClientCapabilities (under
// 2025-11-25 and 2026-07-28 alike). Each offers the server a way to reach
// the host, and the gate relays none of them: the server is told the host
// offers nothing.
var clientRules = capabilityRules{
	"sampling":     "the gate refuses sampling/createMessage from the server",
	"elicitation":  "the gate refuses elicitation/create from the server",
	"roots":        "the gate refuses roots/list from the server",
	"experimental": notDefined,
	"extensions":   notDefined,
}

// serverRules cover the members of the Go SDK's ServerCapabilities: the
// features the relay forwards stay, their members (listChanged, subscribe)
// as the server sent them.
var serverRules = capabilityRules{
	"tools":        "",
	"prompts":      "",
	"resources":    "",
	"completions":  "",
	"logging":      "",
	"experimental": notDefined,
	"extensions":   notDefined,
}

// methodRule is the server capability a host request needs. A strict
// request is refused unless the server advertised the capability: what it
// opens (completions, log messages, resource updates) passes the gate
// unchecked. The others, whose traffic the gate checks itself (pins,
// contract, result scanning), are refused only when the gate withheld
// their capability; a server that did not advertise it answers them.
type methodRule struct {
	capability string
	strict     bool
}

// methodRules cover the host requests that need a server capability.
// Other requests are refused, but for capabilityFree ones: a method of no
// capability the gate knows belongs to one it withholds (tasks/* would
// even carry tool results past the gate's checks).
var methodRules = map[string]methodRule{
	"tools/list":               {"tools", false},
	"tools/call":               {"tools", false},
	"prompts/list":             {"prompts", false},
	"prompts/get":              {"prompts", false},
	"resources/list":           {"resources", false},
	"resources/templates/list": {"resources", false},
	"resources/read":           {"resources", false},
	"resources/subscribe":      {"resources.subscribe", true},
	"resources/unsubscribe":    {"resources.subscribe", true},
	"completion/complete":      {"completions", true},
	"logging/setLevel":         {"logging", true},
}

// capabilityFree are the host requests that need no server capability.
var capabilityFree = []string{"initialize", "ping", "server/discover", "subscriptions/listen"}

// negotiation is what the session knows of the server's capabilities.
type negotiation struct {
	mu sync.Mutex
	// known is set by an initialize or server/discover result (the
	// latest counts): before one, requests are not checked against
	// capabilities.
	known bool
	// relayed are the server capabilities the host may use, with
	// "resources.subscribe" when resources say subscribe; withheld those
	// the gate removed, with why.
	relayed  map[string]bool
	withheld map[string]string
	// logged is the last list of client capabilities logged as withheld.
	logged string
}

// negotiate checks a host request against the server's capabilities and
// returns the params to forward, the client capabilities they carry
// trimmed. It returns false when it refused the request (and answered the
// host): a refused tools/call leaves a rejected receipt.
func (r *Relay) negotiate(m *message, c *call, params json.RawMessage) (json.RawMessage, bool) {
	why := r.caps.refusal(m.Method)
	if why == "" {
		var withheld []withheldCapability
		params, withheld, why = trimClientParams(m.Method, params)
		r.logClientWithheld(m.Method, withheld)
	}
	if why == "" {
		return params, true
	}
	r.o.Log.Warn("gate: request refused", "server", r.o.Entry.Name, "method", m.Method, "why", why)
	if c.receipt != nil {
		c.receipt.ToolHash = ""
		r.settle(c, OutcomeRejected, why, nil)
	}
	r.host.write(errorLine(m.ID, codeRefused, "mcpreg gate: "+why))
	return nil, false
}

// refusal says why a request for method is refused for the server's
// capabilities, or "".
func (n *negotiation) refusal(method string) string {
	if slices.Contains(capabilityFree, method) {
		return ""
	}
	rule, ok := methodRules[method]
	if !ok {
		return fmt.Sprintf("%s is not a method of any server capability the gate relays", method)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.known || n.relayed[rule.capability] {
		return ""
	}
	top, _, _ := strings.Cut(rule.capability, ".")
	if why, withheld := n.withheld[top]; withheld {
		return fmt.Sprintf("%s needs the server capability %q, which the gate withholds: %s", method, rule.capability, why)
	}
	if !rule.strict {
		return ""
	}
	return fmt.Sprintf("%s needs the server capability %q, which the server did not advertise", method, rule.capability)
}

// logClientWithheld logs the client capabilities withheld from the server,
// when they differ from the last ones logged (a 2026-07-28 host sends
// them with every request).
func (r *Relay) logClientWithheld(method string, withheld []withheldCapability) {
	if len(withheld) == 0 {
		return
	}
	list := describeWithheld(withheld)
	r.caps.mu.Lock()
	same := r.caps.logged == list
	r.caps.logged = list
	r.caps.mu.Unlock()
	if !same {
		r.o.Log.Info("gate: client capabilities withheld from the server", "server", r.o.Entry.Name, "method", method, "withheld", list)
	}
}

// trimClientParams removes the client capabilities the gate withholds
// from request params: params.capabilities of initialize, and the client
// capabilities in params._meta of any request (2026-07-28). Params that
// carry neither are returned as received. It returns the capabilities
// withheld, or why the params cannot be read.
func trimClientParams(method string, params json.RawMessage) (json.RawMessage, []withheldCapability, string) {
	if !isObject(params) {
		return params, nil, "" // no member to rewrite; the server judges them
	}
	ms, err := objectMembers(params)
	if err != nil {
		return nil, nil, fmt.Sprintf("%s params cannot be read: %v", method, err)
	}
	var withheld, more []withheldCapability
	if method == "initialize" {
		if ms, withheld, err = trimMember(ms, "capabilities", clientRules, "/params"); err != nil {
			return nil, nil, err.Error()
		}
	}
	ms, more, err = rewriteMember(ms, "_meta", "/params", func(meta []member) ([]member, []withheldCapability, error) {
		return trimMember(meta, mcp.MetaKeyClientCapabilities, clientRules, "/params/_meta")
	})
	if err != nil {
		return nil, nil, err.Error()
	}
	if withheld = append(withheld, more...); len(withheld) == 0 {
		return params, nil, ""
	}
	return joinObject(ms), withheld, ""
}

// serverCapabilities trims the capabilities of an initialize or
// server/discover result and records what the host may use. It returns
// the result to forward, or false when it answered the host itself: a
// result whose capabilities cannot be read records none.
func (r *Relay) serverCapabilities(c *call, result json.RawMessage) (json.RawMessage, bool) {
	ms, err := objectMembers(result)
	var withheld []withheldCapability
	if err == nil {
		ms, withheld, err = trimMember(ms, "capabilities", serverRules, "/result")
	}
	relayed := map[string]bool{}
	if err == nil {
		relayed = relayedCapabilities(ms)
	}
	why := map[string]string{}
	for _, w := range withheld {
		why[w.name] = w.why
	}
	r.caps.mu.Lock()
	r.caps.known, r.caps.relayed, r.caps.withheld = true, relayed, why
	r.caps.mu.Unlock()
	if err != nil {
		msg := fmt.Sprintf("the server's %s result cannot be read: %v", c.method, err)
		r.o.Log.Warn("gate: "+msg, "server", r.o.Entry.Name)
		r.host.write(errorLine(c.hostID, codeRefused, "mcpreg gate: "+msg))
		return nil, false
	}
	if len(withheld) == 0 {
		return result, true
	}
	r.o.Log.Info("gate: server capabilities withheld from the host", "server", r.o.Entry.Name,
		"method", c.method, "withheld", describeWithheld(withheld), "relayed", slices.Sorted(maps.Keys(relayed)))
	return joinObject(ms), true
}

// relayedCapabilities are the capabilities of a trimmed result, with
// "resources.subscribe" when resources say subscribe is true.
func relayedCapabilities(result []member) map[string]bool {
	out := map[string]bool{}
	caps := memberIndex(result, "capabilities")
	if caps < 0 {
		return out // none advertised
	}
	ms, _ := objectMembers(result[caps].value) // read by trimMember
	for _, m := range ms {
		out[m.name] = true
		if m.name != "resources" {
			continue
		}
		sub, _ := objectMembers(m.value)
		if i := memberIndex(sub, "subscribe"); i >= 0 && string(sub[i].value) == "true" {
			out["resources.subscribe"] = true
		}
	}
	return out
}

// trimMember removes from the capabilities object ms[name] (at pointer
// ptr/name) the capabilities rules withhold, and lists them.
func trimMember(ms []member, name string, rules capabilityRules, ptr string) ([]member, []withheldCapability, error) {
	return rewriteMember(ms, name, ptr, func(caps []member) ([]member, []withheldCapability, error) {
		kept, withheld := rules.trim(caps)
		return kept, withheld, nil
	})
}

// rewriteMember replaces the object member name of ms with rewrite's
// members. An absent member is left absent; one that is not an object, or
// a member that differs from name only in case (which a case-insensitive
// reader would take for it), is an error naming its JSON pointer.
func rewriteMember(ms []member, name, ptr string,
	rewrite func([]member) ([]member, []withheldCapability, error),
) ([]member, []withheldCapability, error) {
	ptr += "/" + escapePointer(name)
	if other := foldedLike(ms, name); other != name {
		return nil, nil, fmt.Errorf("%s: a member %q besides %q", ptr, other, name)
	}
	i := memberIndex(ms, name)
	if i < 0 {
		return ms, nil, nil
	}
	inner, err := objectMembers(ms[i].value)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ptr, err)
	}
	inner, changed, err := rewrite(inner)
	if err != nil {
		return nil, nil, err
	}
	if len(changed) == 0 {
		return ms, nil, nil
	}
	ms[i].value = joinObject(inner)
	return ms, changed, nil
}

// withheldCapability is a capability the gate removed, and why.
type withheldCapability struct{ name, why string }

// describeWithheld lists withheld capabilities for the log.
func describeWithheld(ws []withheldCapability) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = fmt.Sprintf("%q (%s)", w.name, w.why)
	}
	return strings.Join(parts, ", ")
}

// trim keeps the capabilities the rules relay, and lists the others.
func (rules capabilityRules) trim(caps []member) ([]member, []withheldCapability) {
	var kept []member
	var withheld []withheldCapability
	for _, m := range caps {
		why, known := rules[m.name]
		switch {
		case !known:
			why = "not a capability the gate knows"
		case why == "" && !isObject(m.value):
			why = "its value is not a JSON object"
		}
		if why == "" {
			kept = append(kept, m)
		} else {
			withheld = append(withheld, withheldCapability{m.name, why})
		}
	}
	return kept, withheld
}

// isObject reports whether raw is (or starts as) a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}
