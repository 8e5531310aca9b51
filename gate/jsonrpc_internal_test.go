package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseMessage(t *testing.T) {
	tests := []struct {
		name, line string
		kind       string // request, notification, response; "" for an error
		id         string
		err        string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "request", `1`, ""},
		{"string id", `{"jsonrpc":"2.0","id":"1","method":"ping"}`, "request", `"1"`, ""},
		{"float id", `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, "request", `1.0`, ""},
		{"negative exponent id", `{"jsonrpc":"2.0","id":-1e3,"method":"ping"}`, "request", `-1e3`, ""},
		{"escaped string id", `{"jsonrpc":"2.0","id":"\u0031","method":"ping"}`, "request", `"\u0031"`, ""},
		{"spaces", " \t{ \"jsonrpc\" : \"2.0\" , \"id\" : 7 , \"method\" : \"ping\" }\r", "request", `7`, ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "notification", ``, ""},
		{"result", `{"jsonrpc":"2.0","id":3,"result":{}}`, "response", `3`, ""},
		{"error", `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}`, "response", `3`, ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "", "", "batches"},
		{"empty batch", ` []`, "", "", "batches"},
		{"not JSON", `{"jsonrpc":`, "", "", "not a JSON-RPC message"},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, "", "", "not a JSON-RPC message"},
		{"number", `1`, "", "", "not a JSON-RPC message"},
		{"null", `null`, "", "", `"jsonrpc"`},
		{"no jsonrpc", `{"id":1,"method":"ping"}`, "", "", `"jsonrpc"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, "", "", `"jsonrpc"`},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, "", "", "not a JSON-RPC message"},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "", "", "neither a string nor a number"},
		{"id true", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, "", "", "neither a string nor a number"},
		{"id array", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, "", "", "neither a string nor a number"},
		{"method number", `{"jsonrpc":"2.0","id":1,"method":5}`, "", "", "not a JSON-RPC message"},
		{"nothing", `{"jsonrpc":"2.0"}`, "", "", `neither "method" nor "id"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseMessage([]byte(tt.line))
			if tt.kind == "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseMessage(%s) = %+v, %v; want an error saying %q", tt.line, m, err, tt.err)
				}
				if tt.err == "batches" && !errors.Is(err, errBatch) {
					t.Errorf("error %v is not errBatch", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseMessage(%s): %v", tt.line, err)
			}
			kind := map[bool]string{true: tt.kind}[m.isRequest() && tt.kind == "request" ||
				m.isNotification() && tt.kind == "notification" || m.isResponse() && tt.kind == "response"]
			if kind != tt.kind || string(m.ID) != tt.id {
				t.Errorf("parseMessage(%s) = %+v (request %v, notification %v, response %v), want a %s with id %s",
					tt.line, m, m.isRequest(), m.isNotification(), m.isResponse(), tt.kind, tt.id)
			}
		})
	}
}

// The lines the gate writes are JSON-RPC messages it would read back.
func TestLinesRoundTrip(t *testing.T) {
	lines := [][]byte{
		requestLine(json.RawMessage(`"a"`), "tools/call", json.RawMessage(`{"name":"<x>"}`)),
		requestLine(nil, "notifications/cancelled", nil),
		resultLine(json.RawMessage(`1.0`), json.RawMessage(`{}`)),
		errorLine(nil, codeParseError, `bad "line" <here>`),
		errorLine(json.RawMessage(`7`), codeRefused, "refused\n"),
		rawErrorLine(json.RawMessage(`"x"`), json.RawMessage(`{"code":1,"message":"m"}`)),
	}
	for _, l := range lines {
		if !json.Valid(l) {
			t.Errorf("invalid JSON: %s", l)
			continue
		}
		if bytes.Contains(l, []byte(`"id":null`)) {
			continue // an answer to no request: never read back
		}
		if _, err := parseMessage(l); err != nil {
			t.Errorf("parseMessage(%s): %v", l, err)
		}
	}
}

// TestPeekHead: the transports route by the top-level id and method only
// (an "id" inside a result is not the message's), ids stay raw text, and
// what is not an object has no head.
func TestPeekHead(t *testing.T) {
	if _, ok := peekHead([]byte(`<html>`)); ok {
		t.Error("peekHead read a head in <html>")
	}
	for _, c := range []struct {
		msg, id, method, token string
	}{
		{`{"jsonrpc":"2.0","result":{"id":7,"method":"x"},"id":1.0}`, `1.0`, "", ""},
		{`{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"progressToken":"p"}}`, `"1"`, "tools/call", ""},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","progress":1}}`, "", "notifications/progress", `"p-1"`},
		{`[{"jsonrpc":"2.0","id":1}]`, "", "", ""},
		{`{"jsonrpc":"2.0","id":1,`, `1`, "", ""},
	} {
		h, _ := peekHead([]byte(c.msg))
		if string(h.ID) != c.id || h.Method != c.method || string(h.ProgressToken) != c.token {
			t.Errorf("peekHead(%s) = %+v, want id %s method %q token %s", c.msg, h, c.id, c.method, c.token)
		}
	}
}
