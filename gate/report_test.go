package gate_test

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/gate"
)

// reports collects what a relay reports.
type reports struct {
	mu    sync.Mutex
	tools []string
	init  []string
	got   chan struct{}
}

func newReports() *reports { return &reports{got: make(chan struct{}, 16)} }

func (r *reports) report(tools, init json.RawMessage) {
	r.mu.Lock()
	r.tools, r.init = append(r.tools, string(tools)), append(r.init, string(init))
	r.mu.Unlock()
	r.got <- struct{}{}
}

func (r *reports) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.tools)
}

// TestMismatchesAreReported: a listing that withholds a tool for not
// matching its pin is reported once, with the session's initialize
// result; the same listing again is not reported twice; a listing that
// hides a tool only for the session's scopes is not a mismatch.
func TestMismatchesAreReported(t *testing.T) {
	rep := newReports()
	s := newSession(t, gate.Options{Entry: entry(t, nil, toolRead, toolWrite), Report: rep.report})
	s.fromHost(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{}}`)
	s.reply(s.upGetsMethod("initialize"), `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"}}`)
	s.hostGets()
	s.listTools(toolsResult(toolRead, toolWrite))
	s.listTools(toolsResult(toolRead, toolWriteChanged))
	s.listTools(toolsResult(toolRead, toolWriteChanged))
	select {
	case <-rep.got:
	case <-time.After(timeout):
		t.Fatal("the mismatch was not reported")
	}
	s.hostGetsNothingElse() // lets a second report, were there one, arrive
	if n := rep.count(); n != 1 || rep.tools[0] != toolsResult(toolRead, toolWriteChanged) ||
		rep.init[0] != `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"}}` {
		t.Fatalf("%d reports %q %q, want the changed listing once with the initialize result", n, rep.tools, rep.init)
	}

	scoped := newReports()
	e := entry(t, nil, toolRead)
	e.Contract = nil // strictest: a read session is shown nothing, and nothing is wrong
	s = newSession(t, gate.Options{Entry: e, Report: scoped.report})
	if got := listedTools(t, s.listTools(toolsResult(toolRead)).Result); len(got) != 0 {
		t.Fatalf("a read session was shown %v", got)
	}
	s.hostGetsNothingElse()
	if scoped.count() != 0 {
		t.Errorf("a tool hidden by scope was reported as a mismatch: %q", scoped.tools)
	}
}

// TestWithhold: withholding a session (a quarantine seen in a fresh
// discovery document) tells the host the tool list changed, then refuses
// its listing and calls, saying why, and answers ping.
func TestWithhold(t *testing.T) {
	s := newSession(t, gate.Options{Entry: entry(t, nil, toolRead)})
	s.listTools(toolsResult(toolRead))
	s.relay.Withhold("io.github.acme/files@1.2.0 is no longer approved for this host")
	if m := s.hostGets(); m.Method != "notifications/tools/list_changed" {
		t.Fatalf("host got %s, want list_changed", m.raw)
	}
	s.relay.Withhold("a second reason") // the first stands, no second notification
	s.fromHost(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	s.hostGetsError(`1`, codeRefused, "is no longer approved for this host")
	s.fromHost(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{}}}`)
	s.hostGetsError(`2`, codeRefused, "is no longer approved for this host")
	s.fromHost(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	s.reply(s.upGetsMethod("ping"), `{}`)
	if m := s.hostGets(); string(m.ID) != "3" || m.Result == nil {
		t.Fatalf("ping: host got %s", m.raw)
	}
	s.upGetsNothingElse()
}
