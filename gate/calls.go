package gate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// callParams are the members of tools/call params the gate reads.
type callParams struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// Meta is the raw _meta member; meta its members the gate reads.
	Meta json.RawMessage `json:"_meta"`
	meta callMeta
}

// admitCall starts the receipt of a tools/call and checks that its tool is
// one the session's latest listing passed (and that the server is not
// withheld: withheld says why it is). A refused call's receipt is written
// here, with the refusal as its reason.
//
// It returns the params to forward: the approval the gate checked is
// removed from _meta, everything else is forwarded as received.
func (r *Relay) admitCall(m *message, withheld string) (*Receipt, json.RawMessage, string) {
	now := r.o.Now()
	e := r.o.Entry
	rc := &Receipt{ID: newReceiptID(), Server: e.Name, Version: e.Version, PinRevision: e.Pins.Revision, StartedAt: now}
	p, err := readCallParams(m.Params)
	refusal := ""
	switch {
	case err != nil:
		refusal = "tools/call params cannot be read: " + err.Error()
	case p.Name == nil:
		refusal = "tools/call params must be an object with a string \"name\""
	default:
		rc.Tool = *p.Name
		if p.meta.IdempotencyKey != nil {
			rc.IdempotencyKey = *p.meta.IdempotencyKey
		}
		refusal = r.checkCall(rc, p, withheld)
	}
	forward := m.Params
	if refusal == "" && p.meta.Approval != nil {
		if forward, err = withoutApproval(m.Params); err != nil {
			refusal = "tools/call params cannot be rewritten: " + err.Error()
		}
	}
	if refusal != "" {
		rc.ToolHash = ""
		r.settle(&call{receipt: rc}, OutcomeRejected, refusal, nil)
		r.o.Log.Warn("gate: call refused", "server", e.Name, "tool", rc.Tool, "why", refusal)
		return nil, nil, refusal
	}
	return rc, forward, ""
}

// checkCall fills the receipt's digest and tool hash and says why the
// call is refused ("" when it may go): the server withheld, the tool not
// passed, or the contract (scope, arguments, key, approval).
func (r *Relay) checkCall(rc *Receipt, p callParams, withheld string) string {
	var err error
	if rc.ArgumentsDigest, err = argumentsDigest(p.Arguments); err != nil {
		return err.Error()
	}
	if withheld != "" {
		return withheld
	}
	hash, def, why := r.tools.admitted(rc.Tool)
	if why != "" {
		return why
	}
	rc.ToolHash = hash
	return r.policy.checkCall(rc.Tool, hash, def, p.Arguments, p.meta, rc.ArgumentsDigest)
}

// withoutApproval removes _meta["io.mcpreg/approval"] from tools/call
// params: the approval is the gate's to check, not the server's to see.
func withoutApproval(params json.RawMessage) (json.RawMessage, error) {
	members, err := objectMembers(params)
	if err != nil {
		return nil, err
	}
	for i, m := range members {
		if m.name != "_meta" {
			continue
		}
		meta, err := objectMembers(m.value)
		if err != nil {
			return nil, err
		}
		meta = slices.DeleteFunc(meta, func(x member) bool { return x.name == metaApproval })
		members[i].value = joinObject(meta)
	}
	return joinObject(members), nil
}

// readCallParams reads the members of tools/call params by their exact
// names, as the server does: the gate must judge the tool the server will
// run. Duplicate member names, and a member that differs from "name" or
// "arguments" only in case (which a case-insensitive reader would take for
// it), make params unreadable.
func readCallParams(params json.RawMessage) (callParams, error) {
	var p callParams
	members, err := objectMembers(params)
	if err != nil {
		return p, err
	}
	for _, want := range []string{"name", "arguments"} {
		if n := foldedLike(members, want); n != want {
			return p, fmt.Errorf("a member %q besides %q", n, want)
		}
	}
	for _, m := range members {
		switch m.name {
		case "name":
			err = json.Unmarshal(m.value, &p.Name)
		case "arguments":
			p.Arguments = m.value
		case "_meta":
			p.Meta = m.value
			err = json.Unmarshal(m.value, &p.meta)
		}
		if err != nil {
			return p, fmt.Errorf("%s: %w", m.name, err)
		}
	}
	return p, nil
}

// settleResult ends a call with the server's result: committed, or failed
// when the result says isError.
//
// The outcome is the server's: a result the gate then withheld or cut was
// still committed by the server; note says what the gate did with it.
func (r *Relay) settleResult(c *call, result json.RawMessage, note string) {
	var res struct {
		IsError bool `json:"isError"`
	}
	outcome, why := OutcomeCommitted, ""
	if err := json.Unmarshal(result, &res); err != nil {
		outcome, why = OutcomeFailed, "the result is not a JSON object"
	} else if res.IsError {
		outcome, why = OutcomeFailed, "the tool reported an error (isError)"
	}
	if note != "" {
		why = strings.TrimPrefix(why+"; "+note, "; ")
	}
	r.settle(c, outcome, why, result)
}

// settle writes c's receipt, if it has one, with the outcome.
func (r *Relay) settle(c *call, outcome Outcome, reason string, answer json.RawMessage) {
	if c.receipt == nil || r.o.Receipts == nil {
		return
	}
	rc := *c.receipt
	rc.EndedAt, rc.Outcome, rc.Reason = r.o.Now(), outcome, reason
	if answer != nil {
		rc.ResultDigest = digest(answer)
	}
	if err := r.o.Receipts.Write(rc); err != nil {
		r.o.Log.Error("gate: writing a receipt", "receipt", rc.ID, "err", err)
	}
}

// filterList passes the tools of a tools/list result that match their
// pins and records them as the session's tools.
func (r *Relay) filterList(result json.RawMessage, page bool) json.RawMessage {
	out, l, err := r.tools.filter(result)
	if err != nil {
		r.o.Log.Warn("gate: tool list unreadable, no tool passed", "server", r.o.Entry.Name, "err", err)
	}
	if len(l.withheld) > 0 {
		r.o.Log.Warn("gate: tools withheld", "server", r.o.Entry.Name, "version", r.o.Entry.Version, "tools", l.withheldNames())
	}
	if *l.mismatched || err != nil {
		r.report(result)
	}
	r.tools.record(l, page)
	return out
}

// report sends a listing that did not match the pins to the registry
// (Options.Report), once per distinct listing in the session, in the
// background: the registry's own scan decides any quarantine.
func (r *Relay) report(result json.RawMessage) {
	if r.o.Report == nil {
		return
	}
	d := digest(result)
	r.mu.Lock()
	seen := r.reported[d]
	r.reported[d] = true
	init := r.initResult
	r.mu.Unlock()
	if seen {
		return
	}
	go r.o.Report(result, init)
}

// relist lists the server's tools itself (after a list_changed) and tells
// the host when the tools passed changed.
func (r *Relay) relist() {
	r.relistPage("", newListing(), 1)
}

func (r *Relay) relistPage(cursor string, acc listing, n int) {
	params := json.RawMessage(`{}`)
	if cursor != "" {
		params = json.RawMessage(`{"cursor":` + string(quote(cursor)) + `}`)
	}
	id := r.register(&call{method: "tools/list", onResult: func(result json.RawMessage) {
		_, l, err := r.tools.filter(result)
		if err != nil {
			r.o.Log.Warn("gate: re-listed tools unreadable", "server", r.o.Entry.Name, "err", err)
		}
		mergeListing(acc, l)
		if *l.mismatched || err != nil {
			r.report(result)
		}
		if next := nextCursor(result); next != "" && n < maxRelistPages {
			r.relistPage(next, acc, n+1)
			return
		}
		if len(acc.withheld) > 0 {
			r.o.Log.Warn("gate: tools withheld", "server", r.o.Entry.Name, "version", r.o.Entry.Version, "tools", acc.withheldNames())
		}
		if r.tools.replace(acc) {
			r.host.write([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
		}
	}})
	r.up.write(requestLine(gateID(id), "tools/list", params))
}

// mergeListing adds a page to acc; a tool withheld on any page stays
// withheld.
func mergeListing(acc, page listing) {
	for n, h := range page.passed {
		if _, bad := acc.withheld[n]; !bad {
			acc.passed[n] = h
		}
	}
	for n, w := range page.withheld {
		acc.withheld[n] = w
		delete(acc.passed, n)
	}
}

// nextCursor is a list result's nextCursor, or "".
func nextCursor(result json.RawMessage) string {
	var r struct {
		NextCursor string `json:"nextCursor"`
	}
	_ = json.Unmarshal(result, &r)
	return r.NextCursor
}
