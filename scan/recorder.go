package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpreg/mcpreg/pin"
)

// Methods whose raw responses a scan keeps.
const (
	methodInitialize    = "initialize"
	methodDiscover      = "server/discover"
	methodListTools     = "tools/list"
	methodListPrompts   = "prompts/list"
	methodGetPrompt     = "prompts/get"
	methodListResources = "resources/list"
	methodListTemplates = "resources/templates/list"
)

// keptMethods are the calls whose raw responses the recorder keeps.
var keptMethods = map[string]bool{
	methodInitialize: true, methodDiscover: true, methodListTools: true, methodListPrompts: true,
	methodGetPrompt: true, methodListResources: true, methodListTemplates: true,
}

// listMethods are the list calls whose results may carry ttlMs
// (2026-07-28).
var listMethods = map[string]bool{methodListTools: true, methodListPrompts: true, methodListResources: true, methodListTemplates: true}

// recorder correlates the raw JSON-RPC traffic of one session: the client's
// calls by id and method, and the server's responses to them, kept byte for
// byte. Both transports feed it whole messages (see lineTap and sseTap).
type recorder struct {
	lim  Limits
	trip *tripwire

	mu       sync.Mutex
	received int                       // messages from the server so far
	calls    map[string]string         // outstanding call id → method
	results  map[string][]*rawResponse // method → unclaimed responses, in order
	// serverInfos are the distinct _meta serverInfo values of the
	// server's results (2026-07-28), in the order first seen.
	serverInfos []string
}

// rawResponse is the server's answer to one call.
type rawResponse struct {
	Result []byte // the raw "result" value; nil for an error response
	Error  []byte // the raw "error" value
}

func newRecorder(lim Limits, trip *tripwire) *recorder {
	return &recorder{lim: lim, trip: trip, calls: map[string]string{}, results: map[string][]*rawResponse{}}
}

// sent notes the calls in a message the client wrote.
func (r *recorder) sent(data []byte) {
	envs, err := parseMessage(data)
	if err != nil {
		return // the SDK's own output; nothing to learn from it
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range envs {
		if e.hasMethod && e.id != "" {
			r.calls[e.id] = e.method
		}
	}
}

// receive reads a message from the server strictly and keeps its responses
// to the calls a scan reads. A message breaking the strict rules trips the
// scan and is returned as an error.
//
// It returns what the SDK is to read instead of data, or nil for data
// itself: an answer to a list call that carries "ttlMs" (2026-07-28) goes
// to the SDK without it, since the SDK would otherwise answer the scan's
// next listing from its cache and the server would never be asked again.
// The raw answer kept is the one the server sent.
func (r *recorder) receive(data []byte) ([]byte, error) {
	r.mu.Lock()
	r.received++
	n := r.received
	r.mu.Unlock()
	if err := pin.Validate(data, r.messageLimits()); err != nil {
		return nil, r.trip.trip(r.invalid(n, data, err))
	}
	envs, err := parseMessage(data)
	if err != nil {
		return nil, r.trip.trip(fmt.Errorf("%w: message %d from the server: %w", ErrProtocol, n, err))
	}
	if r.keep(envs) {
		return withoutTTL(data), nil
	}
	return nil, nil
}

// messageLimits bound one message: its size is already bounded by the taps;
// a message nests one level deeper than its result.
func (r *recorder) messageLimits() pin.Limits {
	return pin.Limits{MaxBytes: int(r.lim.MaxResponseBytes), MaxDepth: r.lim.MaxSchemaDepth + 1}
}

// invalid explains why message n failed strict reading.
func (r *recorder) invalid(n int, data []byte, err error) error {
	what := r.describe(n, data)
	var perr *pin.Error
	if errors.As(err, &perr) && errors.Is(err, pin.ErrTooLarge) {
		return limitError("MaxSchemaDepth", int64(r.lim.MaxSchemaDepth),
			fmt.Sprintf("%s nests deeper than a result may at %s", what, shorten(perr.Pointer)))
	}
	return fromPin(what, err)
}

// describe names message n for an error, with the call it answers when a
// lenient reading finds one.
func (r *recorder) describe(n int, data []byte) string {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(data, &m) == nil && m.ID != nil {
		r.mu.Lock()
		method, ok := r.calls[idKey(jsontext.Value(bytes.TrimSpace(m.ID)))]
		r.mu.Unlock()
		if ok {
			return fmt.Sprintf("message %d from the server (the answer to %s)", n, method)
		}
	}
	return fmt.Sprintf("message %d from the server", n)
}

// shorten keeps the ends of a long JSON pointer.
func shorten(ptr string) string {
	if len(ptr) <= 160 {
		return ptr
	}
	return ptr[:100] + "…" + ptr[len(ptr)-50:]
}

// keep files the responses among envs under their calls' methods, and
// reports whether the message is one answer to a list call whose result
// has "ttlMs".
func (r *recorder) keep(envs []envelope) (cached bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range envs {
		method, ok := r.calls[e.id]
		if e.hasMethod || !ok {
			continue // a request or notification, or an answer to nobody
		}
		delete(r.calls, e.id)
		if e.serverInfo != nil && !slices.Contains(r.serverInfos, string(e.serverInfo)) {
			r.serverInfos = append(r.serverInfos, string(e.serverInfo))
		}
		if keptMethods[method] {
			r.results[method] = append(r.results[method], &rawResponse{Result: e.result, Error: e.errObj})
		}
		cached = len(envs) == 1 && listMethods[method] && e.ttl
	}
	return cached
}

// has reports whether a response to a call of method is unclaimed.
func (r *recorder) has(method string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.results[method]) > 0
}

// next returns the oldest unclaimed response to a call of method. A scan
// makes one call at a time, so it is the answer to the call just made.
func (r *recorder) next(method string) (*rawResponse, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.results[method]
	if len(q) == 0 {
		return nil, false
	}
	r.results[method] = q[1:]
	return q[0], true
}

// envelope is what the recorder reads of one JSON-RPC message.
type envelope struct {
	id        string // idKey of "id"; "" when absent or null
	method    string
	hasMethod bool
	result    []byte
	errObj    []byte
	ttl       bool // the result has "ttlMs"
	// serverInfo is the result's _meta serverInfo, raw; nil when none.
	serverInfo []byte
}

// parseMessage reads one JSON-RPC message or a batch (an array of them).
func parseMessage(data []byte) ([]envelope, error) {
	d := jsontext.NewDecoder(bytes.NewReader(data))
	v, err := d.ReadValue()
	if err != nil {
		return nil, err
	}
	switch v.Kind() {
	case '{':
		e, err := parseEnvelope(v)
		return []envelope{e}, err
	case '[':
		return parseBatch(v)
	}
	return nil, fmt.Errorf("a JSON-RPC message must be an object or an array, got %s", v.Kind())
}

func parseBatch(v jsontext.Value) ([]envelope, error) {
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	var envs []envelope
	for d.PeekKind() == '{' {
		item, err := d.ReadValue()
		if err != nil {
			return nil, err
		}
		e, err := parseEnvelope(item)
		if err != nil {
			return nil, err
		}
		envs = append(envs, e)
	}
	if k := d.PeekKind(); k != ']' {
		return nil, fmt.Errorf("a JSON-RPC batch holds objects, got %s", k)
	}
	return envs, nil
}

// parseEnvelope reads the members of one message object v.
func parseEnvelope(v jsontext.Value) (envelope, error) {
	var e envelope
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := d.ReadToken(); err != nil {
		return e, err
	}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return e, err
		}
		name := tok.String() // before the next read voids tok
		val, err := d.ReadValue()
		if err != nil {
			return e, err
		}
		e.set(name, val)
	}
	return e, nil
}

func (e *envelope) set(name string, val jsontext.Value) {
	switch name {
	case "id":
		e.id = idKey(val)
	case "method":
		e.hasMethod = true
		if val.Kind() == '"' {
			e.method = unquoted(val)
		}
	case "result":
		e.result = bytes.Clone(val)
		if val.Kind() == '{' {
			if ms, err := members(val); err == nil {
				_, e.ttl = ms["ttlMs"]
				e.serverInfo = metaServerInfo(ms)
			}
		}
	case "error":
		e.errObj = bytes.Clone(val)
	}
}

// idKey names a JSON-RPC id the way the SDK matches them: a string, or an
// integer however it is spelled (1, 1.0, 1e0).
func idKey(v jsontext.Value) string {
	switch v.Kind() {
	case '"':
		return "s:" + unquoted(v)
	case '0':
		f, err := strconv.ParseFloat(string(v), 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return "n:" + strconv.FormatInt(int64(f), 10)
		}
		return "n:" + string(v)
	}
	return ""
}

// unquoted returns the value of the JSON string v, which has been validated.
func unquoted(v jsontext.Value) string {
	s, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return ""
	}
	return string(s)
}

// seenServerInfos returns the distinct _meta serverInfo values seen.
func (r *recorder) seenServerInfos() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.serverInfos)
}
