package gate_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/contract"
)

const (
	// toolSearch is read-only; its schema requires q and limits mode.
	toolSearch = `{"name":"search","description":"Searches tickets.","inputSchema":{"type":"object","properties":{"q":{"type":"string"},"mode":{"enum":["fast","full"]}},"required":["q"]}}`
	// toolCreate writes, needs an idempotency key, times out after 1 s.
	toolCreate = `{"name":"create","description":"Creates a ticket.","inputSchema":{"type":"object","properties":{"title":{"type":"string"}}}}`
	// toolDeploy is high-risk and needs an approval of its arguments.
	toolDeploy = `{"name":"deploy","description":"Deploys a release.","inputSchema":{"type":"object","properties":{"env":{"type":"string"}}}}`

	ticketingContract = `contractVersion: mcpreg.contract/v1
owner: platform
auth: {mode: none}
isolation: local_process
tools:
  - {name: search, riskTier: read, approval: none, timeout: 30s, idempotency: idempotent}
  - {name: create, riskTier: write, approval: none, timeout: 1s, idempotency: requires_key}
  - {name: deploy, riskTier: high_risk_execution, approval: always, timeout: 30s, idempotency: idempotent}
`
)

// ticketing is an approved version of the three tools under
// ticketingContract (contractYAML "" means no contract at all).
func ticketing(t *testing.T, contractYAML string) discovery.Entry {
	t.Helper()
	e := entry(t, nil, toolSearch, toolCreate, toolDeploy)
	e.Contract = nil
	if contractYAML != "" {
		c, err := contract.Parse([]byte(contractYAML), contract.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if e.Contract, err = json.Marshal(c.Normalize([]string{"search", "create", "deploy"})); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// listed runs a relay for e with the scopes, lists the three tools and
// returns the names the host was shown.
func listed(t *testing.T, e discovery.Entry, scopes ...string) (*session, []string) {
	t.Helper()
	s := newSession(t, gate.Options{Entry: e, Scopes: scopes})
	m := s.listTools(toolsResult(toolSearch, toolCreate, toolDeploy))
	var names []string
	for _, raw := range listedTools(t, m.Result) {
		var tool struct{ Name string }
		_ = json.Unmarshal([]byte(raw), &tool)
		names = append(names, tool.Name)
	}
	return s, names
}

// callLine is a tools/call request.
func callLine(id, name, args, meta string) string {
	p := `{"name":"` + name + `","arguments":` + args
	if meta != "" {
		p += `,"_meta":` + meta
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + p + `}}`
}

// jcsDigest is "sha256:" of the JCS form of args, as the gate computes
// the arguments digest.
func jcsDigest(t *testing.T, args string) string {
	t.Helper()
	v := jsontext.Value(args)
	if err := v.Canonicalize(); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(v)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestScopes: a read session is shown only the read tool and cannot call
// the others; a session with every scope sees all three.
func TestScopes(t *testing.T) {
	e := ticketing(t, ticketingContract)
	s, names := listed(t, e)
	if !slices.Equal(names, []string{"search"}) {
		t.Fatalf("a read session was shown %q, want only search", names)
	}
	s.fromHost(callLine(`"w"`, "create", `{"title":"x"}`, `{"io.mcpreg/idempotencyKey":"k1"}`))
	s.hostGetsError(`"w"`, codeRefused, `"create"`, "scope 'write' required but not granted")
	s.fromHost(callLine(`"h"`, "deploy", `{"env":"prod"}`, ""))
	s.hostGetsError(`"h"`, codeRefused, "scope 'high_risk_execution' required but not granted")
	s.upGetsNothingElse()
	for _, rc := range s.sink.all() {
		if rc.Outcome != gate.OutcomeRejected || !strings.Contains(rc.Reason, "required but not granted") {
			t.Errorf("receipt %+v, want rejected for the scope", rc)
		}
	}

	_, names = listed(t, e, gate.ScopeRead, gate.ScopeWrite, gate.ScopeHighRisk)
	if !slices.Equal(names, []string{"search", "create", "deploy"}) {
		t.Errorf("a session with every scope was shown %q", names)
	}
}

// TestNoContractIsStrictest: a version without a contract holds every tool
// to the strictest rule, so a read session is shown none.
func TestNoContractIsStrictest(t *testing.T) {
	s, names := listed(t, ticketing(t, ""))
	if len(names) != 0 {
		t.Fatalf("without a contract a read session was shown %q", names)
	}
	s.fromHost(callLine(`1`, "search", `{"q":"x"}`, ""))
	s.hostGetsError(`1`, codeRefused, "scope 'high_risk_execution' required but not granted")
	s.upGetsNothingElse()
}

// TestArgumentsMatchTheApprovedSchema: each kind of violation is named and
// the call never leaves; valid arguments pass unchanged.
func TestArgumentsMatchTheApprovedSchema(t *testing.T) {
	s, _ := listed(t, ticketing(t, ticketingContract))
	for _, c := range []struct{ id, args, want string }{
		{`"missing"`, `{}`, `missing required argument "q"`},
		{`"enum"`, `{"q":"x","mode":"slow"}`, "argument /mode: value not in enum"},
		{`"type"`, `{"q":5}`, "argument /q: wrong type: got number, want string"},
		{`"not an object"`, `[1]`, "wrong type: got array, want object"},
	} {
		s.fromHost(callLine(c.id, "search", c.args, ""))
		s.hostGetsError(c.id, codeRefused, "do not match the approved input schema", c.want)
	}
	s.upGetsNothingElse()
	s.fromHost(callLine(`"ok"`, "search", `{"q":"printer","mode":"fast"}`, ""))
	m := s.upGetsMethod("tools/call")
	if !strings.Contains(string(m.Params), `"arguments":{"q":"printer","mode":"fast"}`) {
		t.Errorf("valid arguments were changed on the way: %s", m.Params)
	}
}

// TestIdempotencyKeys: a requires_key tool needs a key; the key is
// forwarded; reusing it with other arguments is refused.
func TestIdempotencyKeys(t *testing.T) {
	s, _ := listed(t, ticketing(t, ticketingContract), gate.ScopeRead, gate.ScopeWrite)
	s.fromHost(callLine(`1`, "create", `{"title":"a"}`, ""))
	s.hostGetsError(`1`, codeRefused, `tool "create" requires an idempotency key`, `_meta["io.mcpreg/idempotencyKey"]`)
	s.fromHost(callLine(`2`, "create", `{"title":"a"}`, `{"io.mcpreg/idempotencyKey":""}`))
	s.hostGetsError(`2`, codeRefused, "requires an idempotency key")
	s.upGetsNothingElse()

	s.fromHost(callLine(`3`, "create", `{"title":"a"}`, `{"io.mcpreg/idempotencyKey":"k-1"}`))
	m := s.upGetsMethod("tools/call")
	if !strings.Contains(string(m.Params), `"io.mcpreg/idempotencyKey":"k-1"`) {
		t.Errorf("the key was not forwarded: %s", m.Params)
	}
	s.reply(m, `{"content":[]}`)
	s.hostGets()
	s.fromHost(callLine(`4`, "create", `{"title":"b"}`, `{"io.mcpreg/idempotencyKey":"k-1"}`))
	s.hostGetsError(`4`, codeRefused, `idempotency key "k-1" was used with other arguments`)
	s.upGetsNothingElse()
	s.fromHost(callLine(`5`, "create", `{"title":"a"}`, `{"io.mcpreg/idempotencyKey":"k-1"}`))
	s.upGetsMethod("tools/call") // a retry with the same arguments goes
	if rc := s.sink.all(); len(rc) < 3 || rc[2].IdempotencyKey != "k-1" || rc[2].Outcome != gate.OutcomeCommitted {
		t.Errorf("receipts %+v: want the third committed with key k-1", rc)
	}
}

// TestApprovals: an approval-always tool needs an approval of exactly
// this call's arguments, which the server never sees.
func TestApprovals(t *testing.T) {
	s, _ := listed(t, ticketing(t, ticketingContract), gate.ScopeHighRisk)
	args := `{"env":"prod"}`
	want := jcsDigest(t, args)
	s.fromHost(callLine(`1`, "deploy", args, ""))
	s.hostGetsError(`1`, codeRefused, `tool "deploy" requires an approval`, want)
	other := jcsDigest(t, `{"env":"staging"}`)
	s.fromHost(callLine(`2`, "deploy", args, `{"io.mcpreg/approval":{"argumentsDigest":"`+other+`"}}`))
	s.hostGetsError(`2`, codeRefused, "is for other arguments", other)
	s.upGetsNothingElse()

	s.fromHost(callLine(`3`, "deploy", args, `{"progressToken":"p1","io.mcpreg/approval":{"argumentsDigest":"`+want+`"}}`))
	m := s.upGetsMethod("tools/call")
	if strings.Contains(string(m.Params), "io.mcpreg/approval") || !strings.Contains(string(m.Params), `"progressToken":"p1"`) {
		t.Errorf("forwarded params %s: want the approval removed and the rest of _meta kept", m.Params)
	}
}

// TestCallTimeout: a call that outlives its contract timeout is cancelled
// upstream, the host gets a timeout error, the receipt says uncertain and
// the late answer is dropped.
func TestCallTimeout(t *testing.T) {
	s, _ := listed(t, ticketing(t, ticketingContract), gate.ScopeRead, gate.ScopeWrite)
	s.fromHost(callLine(`"slow"`, "create", `{"title":"a"}`, `{"io.mcpreg/idempotencyKey":"k"}`))
	call := s.upGetsMethod("tools/call")
	s.hostGetsError(`"slow"`, codeUpstream, `tool "create" timed out after 1s`)
	cancel := s.upGetsMethod("notifications/cancelled")
	if !strings.Contains(string(cancel.Params), `"requestId":`+string(call.ID)) {
		t.Errorf("cancelled %s does not name the call's gate id %s", cancel.Params, call.ID)
	}
	s.reply(call, `{"content":[]}`)
	s.hostGetsNothingElse()
	rc := s.sink.all()
	if len(rc) != 1 || rc[0].Outcome != gate.OutcomeUncertain || !strings.Contains(rc[0].Reason, "timed out") {
		t.Errorf("receipts %+v, want one uncertain with the timeout", rc)
	}
}
