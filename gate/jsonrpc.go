package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// JSON-RPC error codes the gate answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	// codeRefused is the gate's own code: the request was well formed and
	// refused by policy (an unapproved tool, a withheld server).
	codeRefused = -32001
	// codeUpstream is the gate's code for an upstream that failed the call
	// (exited, answered garbage).
	codeUpstream = -32002
)

// message is one JSON-RPC 2.0 message, with the members the gate reads
// kept as raw JSON text so that what it forwards is what it received.
type message struct {
	// ID is the raw id: nil when absent (a notification). 1, "1" and 1.0
	// are different ids, so ids are compared and echoed as raw text.
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// The kinds of message.
func (m *message) isRequest() bool      { return m.Method != "" && m.ID != nil }
func (m *message) isNotification() bool { return m.Method != "" && m.ID == nil }
func (m *message) isResponse() bool     { return m.Method == "" && m.ID != nil }

// errBatch is a JSON array: batches were removed from MCP in 2025-06-18.
var errBatch = errors.New("JSON-RPC batches are not supported")

// parseMessage reads one line of the stdio transport. It refuses a batch,
// a value that is not an object, a wrong "jsonrpc" member and an id that
// is neither a string nor a number.
func parseMessage(line []byte) (*message, error) {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		return nil, errBatch
	}
	// One decoding (a line may be a whole tool result). Whatever the gate
	// forwards it re-encodes from these fields, so a member given twice
	// (or in other letter case) cannot mean one thing here and another
	// to the other side.
	var d struct {
		JSONRPC *string `json:"jsonrpc"`
		message
	}
	if err := json.Unmarshal(line, &d); err != nil {
		return nil, fmt.Errorf("not a JSON-RPC message: %w", err)
	}
	if d.JSONRPC == nil || *d.JSONRPC != "2.0" {
		return nil, errors.New(`"jsonrpc" must be "2.0"`)
	}
	m := d.message
	if m.ID != nil && !validID(m.ID) {
		return nil, fmt.Errorf("id %s is neither a string nor a number", m.ID)
	}
	if m.Method == "" && m.ID == nil {
		return nil, errors.New(`neither "method" nor "id": not a request, notification or response`)
	}
	return &m, nil
}

// validID reports whether raw is a JSON string or number (null is not an
// id a request may carry).
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case c == '-' || c >= '0' && c <= '9':
		var n json.Number
		return json.Unmarshal(raw, &n) == nil
	}
	return false
}

// requestLine encodes a request or notification (id nil) with raw params.
func requestLine(id json.RawMessage, method string, params json.RawMessage) []byte {
	b := []byte(`{"jsonrpc":"2.0"`)
	if id != nil {
		b = append(append(b, `,"id":`...), id...)
	}
	b = append(append(b, `,"method":`...), quote(method)...)
	if params != nil {
		b = append(append(b, `,"params":`...), params...)
	}
	return append(b, '}')
}

// resultLine encodes a response with a raw result.
func resultLine(id, result json.RawMessage) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	b = append(append(b, `,"result":`...), result...)
	return append(b, '}')
}

// errorLine encodes an error response; id nil means null (the request
// could not be read).
func errorLine(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(append(append(b, `,"message":`...), quote(msg)...), '}')
	return append(b, '}')
}

// rawErrorLine encodes an error response with the upstream's raw error
// object.
func rawErrorLine(id, rpcErr json.RawMessage) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	b = append(append(b, `,"error":`...), rpcErr...)
	return append(b, '}')
}

// quote is s as a JSON string.
func quote(s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// head is what the transports read of a message to route it: its id and
// method, and a progress notification's token. Values are raw text.
type head struct {
	ID            json.RawMessage
	Method        string
	ProgressToken json.RawMessage
}

// isResponse reports whether the message is a response (an id, no
// method).
func (h head) isResponse() bool { return h.Method == "" && h.ID != nil }

// peekHead reads a message's head without decoding the rest (a result
// may be megabytes the relay reads anyway); ok is false when msg is not a
// JSON object (what was read before is kept).
func peekHead(msg []byte) (h head, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(msg))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return h, false
	}
	var params json.RawMessage
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return h, false
		}
		switch tok.String() {
		case "id":
			v, err := dec.ReadValue()
			if err != nil {
				return h, false
			}
			h.ID = bytes.Clone(v)
		case "method":
			v, err := dec.ReadValue()
			if err != nil || json.Unmarshal(v, &h.Method) != nil {
				return h, false
			}
		case "params":
			v, err := dec.ReadValue()
			if err != nil {
				return h, false
			}
			params = bytes.Clone(v)
		default:
			if err := dec.SkipValue(); err != nil {
				return h, false
			}
		}
	}
	if h.Method == "notifications/progress" && len(params) > 0 {
		var p struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		}
		_ = json.Unmarshal(params, &p)
		h.ProgressToken = p.ProgressToken
	}
	return h, true
}
