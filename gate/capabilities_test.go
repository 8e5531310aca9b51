package gate_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// hostCapabilities are client capabilities a host offers (every member of
// the SDK's ClientCapabilities, and one it does not know), with escapes
// and spacing a re-encoding would change.
const hostCapabilities = `{ "roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}},` +
	`"experimental":{"x":{}},"extensions":{"io.acme/x":{}},"tasks":{"requests":{}} }`

// hostInfo is the host's clientInfo, which must reach the server as sent.
const hostInfo = `{"name":"host \u003cdesk\u003e", "version" :"1.0"}`

// sessionWithLog is a session whose relay logs to the returned buffer.
func sessionWithLog(t *testing.T, tools ...string) (*session, *testkit.SyncBuffer) {
	t.Helper()
	log := &testkit.SyncBuffer{}
	s := newSession(t, gate.Options{Entry: entry(t, nil, tools...),
		Log: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	return s, log
}

// An initialize request reaches the server without the client
// capabilities the gate withholds (all of them: each is a way for the
// server to reach the host, which the gate does not relay); protocolVersion
// and clientInfo reach it as the host sent them, and the log says what was
// withheld.
func TestInitializeClientCapabilitiesTrimmed(t *testing.T) {
	tests := []struct {
		name, params string
		want         string // the params the server gets; "" for the params sent
		logged       []string
	}{
		{
			name:   "withheld",
			params: `{"protocolVersion":"2025-11-25","capabilities":` + hostCapabilities + `,"clientInfo":` + hostInfo + `}`,
			want:   `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":` + hostInfo + `}`,
			logged: []string{`\"sampling\"`, `\"elicitation\"`, `\"roots\"`, `\"experimental\"`, `\"extensions\"`, `\"tasks\" (not a capability the gate knows)`},
		},
		{
			name:   "nothing to withhold",
			params: `{ "protocolVersion":"2025-11-25", "capabilities":{ }, "clientInfo":` + hostInfo + ` }`,
		},
		{
			name:   "no capabilities member",
			params: `{"protocolVersion":"2025-11-25","clientInfo":` + hostInfo + `}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, log := sessionWithLog(t)
			s.fromHost(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":` + tt.params + `}`)
			m := s.upGetsMethod("initialize")
			want := tt.want
			if want == "" {
				want = tt.params
			}
			if string(m.Params) != want {
				t.Errorf("upstream got params\n%s\nwant\n%s", m.Params, want)
			}
			for _, w := range tt.logged {
				if !strings.Contains(log.String(), w) {
					t.Errorf("log does not say %s:\n%s", w, log)
				}
			}
		})
	}
}

// Initialize params the gate cannot read the capabilities of are refused,
// with where, and never reach the server.
func TestInitializeUnreadableCapabilitiesRefused(t *testing.T) {
	tests := []struct{ name, params, want string }{
		{"case variant", `{"capabilities":{},"Capabilities":{"sampling":{}}}`, `/params/capabilities: a member "Capabilities"`},
		{"not an object", `{"capabilities":["sampling"]}`, "/params/capabilities: not a JSON object"},
		{"listed twice", `{"capabilities":{},"capabilities":{"sampling":{}}}`, "duplicate"},
	}
	s := newSession(t, gate.Options{Entry: entry(t, nil)})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.t = t
			s.fromHost(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":` + tt.params + `}`)
			s.hostGetsError(`"i"`, codeRefused, tt.want)
			s.upGetsNothingElse()
		})
	}
}

// meta2026 is a 2026-07-28 request's _meta carrying hostCapabilities, and
// a progress token.
const meta2026 = `{"` + mcp.MetaKeyProtocolVersion + `":"2026-07-28","` + mcp.MetaKeyClientInfo + `":` + hostInfo +
	`,"` + mcp.MetaKeyClientCapabilities + `":` + hostCapabilities + `,"progressToken":"p-1"}`

// Under 2026-07-28 every request carries the client's capabilities in
// _meta: they reach the server trimmed like initialize's, the rest of
// _meta and of the params as the host sent them. A request without them
// reaches it unchanged.
func TestMetaClientCapabilitiesTrimmed(t *testing.T) {
	wantMeta := strings.Replace(meta2026, hostCapabilities, `{}`, 1)
	s := newSession(t, gate.Options{Entry: entry(t, nil, toolRead)})
	tests := []struct{ method, params, want string }{
		{"tools/list", `{"_meta":` + meta2026 + `}`, `{"_meta":` + wantMeta + `}`},
		{"tools/call", `{"name":"read","arguments":{"path":"/x"},"_meta":` + meta2026 + `}`,
			`{"name":"read","arguments":{"path":"/x"},"_meta":` + wantMeta + `}`},
		{"tools/call", `{"name":"read", "arguments":{"path":"<x>"},"_meta":{"progressToken":"p-2"} }`, ""},
		{"server/discover", `{"_meta":` + meta2026 + `}`, `{"_meta":` + wantMeta + `}`},
	}
	for i, tt := range tests {
		id := `"r` + string(rune('0'+i)) + `"`
		s.fromHost(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + tt.method + `","params":` + tt.params + `}`)
		m := s.upGetsMethod(tt.method)
		want := tt.want
		if want == "" {
			want = tt.params
		}
		if string(m.Params) != want {
			t.Errorf("%s: upstream got params\n%s\nwant\n%s", tt.method, m.Params, want)
		}
		result := `{"content":[]}`
		if tt.method == "tools/list" {
			result = toolsResult(toolRead)
		}
		s.reply(m, result)
		if a := s.hostGets(); string(a.ID) != id || a.Error != nil {
			t.Fatalf("host got %s, want the answer for %s", a.raw, id)
		}
	}
}

// serverResult is an initialize or server/discover result with raw
// capabilities.
func serverResult(caps string) string {
	return `{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"serverInfo":{"name":"files <x>","version":"1.2.0"}}`
}

// The server's capabilities reach the host without those the gate does
// not relay; the rest of the result stays as the server sent it.
func TestServerCapabilitiesTrimmed(t *testing.T) {
	const kept = `{"tools":{"listChanged":true},"prompts":{},"resources":{"subscribe":true, "listChanged":true},"completions":{},"logging":{}}`
	tests := []struct{ name, caps, want string }{
		{
			name: "withheld",
			caps: `{"tools":{"listChanged":true},"experimental":{"x":{}},"prompts":{},"resources":{"subscribe":true, "listChanged":true},` +
				`"extensions":{"io.acme/ui":{}},"completions":{},"tasks":{"requests":{}},"logging":{},"Tools":{}}`,
			want: kept,
		},
		{name: "all relayed", caps: kept, want: kept},
		{name: "not an object", caps: `{"tools":{},"completions":null,"logging":true}`, want: `{"tools":{}}`},
	}
	for _, method := range []string{"initialize", "server/discover"} {
		for _, tt := range tests {
			t.Run(method+" "+tt.name, func(t *testing.T) {
				s, log := sessionWithLog(t)
				s.fromHost(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{}}`)
				s.reply(s.upGetsMethod(method), serverResult(tt.caps))
				m := s.hostGets()
				if string(m.Result) != serverResult(tt.want) {
					t.Errorf("host got\n%s\nwant\n%s", m.Result, serverResult(tt.want))
				}
				if tt.caps != tt.want && !strings.Contains(log.String(), "server capabilities withheld") {
					t.Errorf("log does not say what was withheld:\n%s", log)
				}
			})
		}
	}
}

// A server result whose capabilities cannot be read is not passed: the
// host gets an error naming where, and no capability. (A result with a
// duplicate member withholds the whole server: see TestInstructionsWithheld.)
func TestServerCapabilitiesUnreadable(t *testing.T) {
	for _, caps := range []string{`{"tools":{}},"Capabilities":{"prompts":{}}`, `["tools"]`} {
		s := newSession(t, gate.Options{Entry: entry(t, nil)})
		s.fromHost(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
		s.reply(s.upGetsMethod("initialize"), serverResult(caps))
		s.hostGetsError(`1`, codeRefused, "initialize result cannot be read", "/result/capabilities")
		s.fromHost(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`)
		s.hostGetsError(`2`, codeRefused, `"logging"`, "did not advertise")
		s.upGetsNothingElse()
	}
}

// Once the server's capabilities are known, a request for a capability the
// gate withholds, or for one that opens traffic the gate does not check
// (completions, logging, resource subscriptions) which the server did not
// advertise, is refused with an error naming it and never reaches the
// server; so is a method of no capability the gate relays. The rest
// passes: tools, prompts and resources the gate checks itself, and a
// server that did not advertise them answers them.
func TestUnadvertisedCapabilityRefused(t *testing.T) {
	s := newSession(t, gate.Options{Entry: entry(t, nil, toolRead)})
	s.fromHost(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	s.reply(s.upGetsMethod("initialize"), serverResult(`{"tools":{},"resources":{},"prompts":null,"completions":true,"experimental":{"x":{}}}`))
	s.hostGets()

	refused := []struct{ method, want string }{
		{"resources/subscribe", `resources/subscribe needs the server capability "resources.subscribe", which the server did not advertise`},
		{"resources/unsubscribe", `"resources.subscribe"`},
		{"logging/setLevel", `logging/setLevel needs the server capability "logging", which the server did not advertise`},
		{"completion/complete", `completion/complete needs the server capability "completions", which the gate withholds: its value is not a JSON object`},
		{"prompts/list", `prompts/list needs the server capability "prompts", which the gate withholds`},
		{"prompts/get", `"prompts"`},
		{"tasks/get", "tasks/get is not a method of any server capability the gate relays"},
		{"x/custom", "x/custom is not a method"},
	}
	for _, tt := range refused {
		s.fromHost(`{"jsonrpc":"2.0","id":"` + tt.method + `","method":"` + tt.method + `","params":{}}`)
		s.hostGetsError(`"`+tt.method+`"`, codeRefused, tt.want)
	}
	s.upGetsNothingElse()

	passes := func(s *session, methods ...string) {
		t.Helper()
		for _, method := range methods {
			s.fromHost(`{"jsonrpc":"2.0","id":"` + method + `","method":"` + method + `","params":{}}`)
			s.upGetsMethod(method)
		}
	}
	passes(s, "ping", "tools/list", "resources/read", "resources/templates/list", "server/discover", "subscriptions/listen")

	s = newSession(t, gate.Options{Entry: entry(t, nil)})
	s.fromHost(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	s.reply(s.upGetsMethod("initialize"), serverResult(`{"resources":{"subscribe":true},"completions":{},"logging":{}}`))
	s.hostGets()
	passes(s, "resources/subscribe", "resources/unsubscribe", "completion/complete", "logging/setLevel", "prompts/list")
}

// A tools/call refused for the server's capabilities leaves a rejected
// receipt, like every refused call.
func TestCallRefusedForCapabilityReceipted(t *testing.T) {
	s := newSession(t, gate.Options{Entry: entry(t, nil, toolRead)})
	s.listTools(toolsResult(toolRead)) // before initialize: not checked
	s.fromHost(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	s.reply(s.upGetsMethod("initialize"), serverResult(`{"tools":null}`))
	s.hostGets()

	s.fromHost(`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"read","arguments":{}}}`)
	s.hostGetsError(`"c"`, codeRefused, `"tools"`, "the gate withholds")
	s.upGetsNothingElse()
	rs := s.sink.all()
	if len(rs) != 1 || rs[0].Outcome != gate.OutcomeRejected || rs[0].Tool != "read" || rs[0].ToolHash != "" ||
		!strings.Contains(rs[0].Reason, `"tools"`) {
		t.Errorf("receipts %+v, want one rejected call of read naming the capability", rs)
	}
}
