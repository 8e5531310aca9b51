package gate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/finding"
)

// DefaultMaxMessageBytes bounds one JSON-RPC message from either side.
const DefaultMaxMessageBytes = 4 << 20

// Options configure a Relay.
type Options struct {
	// Entry is the approved version the gate enforces (from a verified
	// discovery document).
	Entry discovery.Entry
	// Receipts takes a receipt for every tools/call; nil keeps none.
	Receipts ReceiptSink
	// Log receives what the gate withholds and refuses (never protocol
	// traffic). nil discards.
	Log *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxMessageBytes bounds one message; 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int
	// BlockSeverity is the lowest finding severity in a result that
	// withholds it when the contract filters results; "" means
	// DefaultBlockSeverity.
	BlockSeverity finding.Severity
	// MaxResultBytes caps a tool result (longer texts are cut, and the cut
	// stated); 0 means DefaultMaxResultBytes.
	MaxResultBytes int
	// Report, when set, is given each tools/list result that did not
	// match the pins (once per distinct result in a session) and the
	// session's raw initialize result, in a goroutine of its own: the
	// gate's observation for the registry's connect-time check.
	Report func(toolsResult, initializeResult json.RawMessage)
	// Scopes are the session's scopes (ScopeRead, ScopeWrite,
	// ScopeHighRisk): a tool whose contract risk tier is not among them is
	// neither listed nor callable. Empty means ScopeRead.
	Scopes []string
}

// Relay stands between one host session and one upstream server, both
// speaking newline-delimited JSON-RPC (the stdio transport). It forwards
// messages as their raw bytes except where it must not: tool listings
// lose the tools that do not match the pins, calls to tools not passed are
// refused, and server-to-host requests are answered by the gate.
type Relay struct {
	o       Options
	host    *lineWriter
	up      *lineWriter
	tools   *toolFilter
	prompts *promptFilter
	policy  *callPolicy
	// caps is what the session negotiated (capabilities.go).
	caps negotiation

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]*call  // by upstream id
	inFlight map[string]int64 // host id text → upstream id
	// withheld, when set, says why the whole server is withheld: every
	// request but ping is refused.
	withheld string
	// reported are the digests of listings reported this session.
	reported map[string]bool
	// initResult is the session's initialize result, for reports.
	initResult json.RawMessage
}

// call is a request the gate sent upstream and awaits an answer to.
type call struct {
	hostID   json.RawMessage // nil for the gate's own requests
	method   string
	page     bool   // tools/list with a cursor
	progress string // the host's progress token, raw text
	receipt  *Receipt
	tool     string
	prompt   string // the prompt a prompts/get names
	// timer cancels a tools/call that outlives its contract timeout.
	timer *time.Timer
	// onResult handles the answer to a gate-originated request.
	onResult func(result json.RawMessage)
}

// NewRelay returns a relay enforcing o.Entry.
func NewRelay(o Options) *Relay {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.BlockSeverity == "" {
		o.BlockSeverity = DefaultBlockSeverity
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	policy := newCallPolicy(o.Entry.Contract, o.Scopes)
	return &Relay{o: o, policy: policy, tools: newToolFilter(o.Entry, policy), prompts: newPromptFilter(o.Entry),
		pending: map[int64]*call{}, inFlight: map[string]int64{}, reported: map[string]bool{}}
}

// ErrUpstreamClosed is returned by Run when the upstream server closed its
// output (exited) before the host closed its input.
var ErrUpstreamClosed = errors.New("the upstream server closed its output")

// Run relays until the host closes its input (nil) or the upstream closes
// its output (ErrUpstreamClosed); either way every call still awaiting an
// answer is settled. It does not close upW: the caller owns the upstream.
func (r *Relay) Run(ctx context.Context, hostIn io.Reader, hostOut io.Writer, upIn io.Reader, upOut io.Writer) error {
	r.mu.Lock() // Withhold may run in another goroutine already
	r.host, r.up = &lineWriter{w: hostOut}, &lineWriter{w: upOut}
	r.mu.Unlock()
	upDone := make(chan error, 1)
	go func() { upDone <- r.readUpstream(upIn) }()
	hostDone := make(chan error, 1)
	go func() { hostDone <- r.readHost(hostIn) }()
	var err error
	select {
	case err = <-hostDone:
	case err = <-upDone:
		if err == nil {
			err = ErrUpstreamClosed
		}
	case <-ctx.Done():
		err = ctx.Err()
	}
	r.settleAll(err)
	return err
}

// readHost handles the host's messages until its input ends.
func (r *Relay) readHost(in io.Reader) error {
	return r.readLines(in, "host", r.fromHost)
}

// readUpstream handles the upstream's messages until its output ends.
func (r *Relay) readUpstream(in io.Reader) error {
	return r.readLines(in, "upstream", r.fromUpstream)
}

// readLines calls handle for each line of in; an over-long line is
// answered (host) or dropped (upstream) and reading goes on.
func (r *Relay) readLines(in io.Reader, side string, handle func([]byte)) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, r.o.MaxMessageBytes)
		switch {
		case tooLong:
			r.o.Log.Warn("gate: message too large, dropped", "from", side, "limit_bytes", r.o.MaxMessageBytes)
			if side == "host" {
				r.host.write(errorLine(nil, codeInvalidRequest, fmt.Sprintf("mcpreg gate: message larger than %d bytes", r.o.MaxMessageBytes)))
			}
		case len(line) > 0:
			handle(line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line of at most limit bytes (without the newline);
// a longer line is consumed and reported tooLong.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, isPrefix, err := br.ReadLine()
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > limit {
				line, tooLong = nil, true
			}
		}
		if err != nil || !isPrefix {
			return line, tooLong, err
		}
	}
}

// lineWriter writes whole lines, one writer at a time.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) write(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(append(b, '\n')) // a closed side ends its reader too
}

// fromHost handles one message from the host.
func (r *Relay) fromHost(line []byte) {
	m, err := parseMessage(line)
	if err != nil {
		code := codeInvalidRequest
		if !json.Valid(line) {
			code = codeParseError // a malformed batch too
		}
		r.host.write(errorLine(nil, code, "mcpreg gate: "+err.Error()))
		return
	}
	switch {
	case m.isRequest():
		r.hostRequest(m)
	case m.isNotification():
		r.hostNotification(m)
	default:
		// A response: the gate forwards no server-to-host request, so
		// there is nothing it could answer.
		r.o.Log.Warn("gate: dropped a response from the host to no request", "id", string(m.ID))
	}
}

// hostRequest forwards a request upstream under a gate id, unless policy
// refuses it.
func (r *Relay) hostRequest(m *message) {
	key := string(m.ID)
	r.mu.Lock()
	if _, dup := r.inFlight[key]; dup {
		r.mu.Unlock()
		r.host.write(errorLine(m.ID, codeInvalidRequest, fmt.Sprintf("mcpreg gate: request id %s is already in flight", key)))
		return
	}
	withheld := r.withheld
	r.mu.Unlock()
	c := &call{hostID: m.ID, method: m.Method, progress: progressToken(m.Params)}
	params := m.Params
	switch {
	case m.Method == "tools/call":
		// Checked even when the server is withheld: every call leaves a
		// receipt.
		rc, forward, refusal := r.admitCall(m, withheld)
		if refusal != "" {
			r.host.write(errorLine(m.ID, codeRefused, "mcpreg gate: "+refusal))
			return
		}
		c.receipt, c.tool, params = rc, rc.Tool, forward
	case withheld != "" && m.Method != "ping":
		r.host.write(errorLine(m.ID, codeRefused, "mcpreg gate: "+withheld))
		return
	case m.Method == "tools/list":
		c.page = hasCursor(m.Params)
	case m.Method == "prompts/get":
		c.prompt = promptName(m.Params)
		if why := r.prompts.refuseGet(c.prompt); why != "" {
			r.host.write(errorLine(m.ID, codeRefused, "mcpreg gate: "+why))
			return
		}
	}
	params, ok := r.negotiate(m, c, params)
	if !ok {
		return
	}
	id := r.register(c)
	if c.receipt != nil {
		r.startTimer(id, c)
	}
	r.up.write(requestLine(gateID(id), m.Method, params))
}

// startTimer ends the call when it outlives its tool's contract timeout:
// the server is told to cancel, the host gets a timeout error, the receipt
// says uncertain, and a late answer is dropped.
func (r *Relay) startTimer(id int64, c *call) {
	d := r.policy.timeout(c.tool)
	if d <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c.timer = time.AfterFunc(d, func() {
		if r.take(id) == nil {
			return // answered meanwhile
		}
		why := fmt.Sprintf("tool %q timed out after %s (its contract timeout); the call was cancelled", c.tool, d)
		r.up.write(requestLine(nil, "notifications/cancelled", json.RawMessage(`{"requestId":`+strconv.FormatInt(id, 10)+`,"reason":"timeout"}`)))
		r.settle(c, OutcomeUncertain, why, nil)
		r.host.write(errorLine(c.hostID, codeUpstream, "mcpreg gate: "+why))
	})
}

// register records c as awaiting an answer and returns its upstream id.
func (r *Relay) register(c *call) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextID++
	r.pending[r.nextID] = c
	if c.hostID != nil {
		r.inFlight[string(c.hostID)] = r.nextID
	}
	return r.nextID
}

// take removes and returns the call awaiting the upstream id.
func (r *Relay) take(id int64) *call {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.pending[id]
	if c != nil {
		if c.timer != nil {
			c.timer.Stop()
		}
		delete(r.pending, id)
		delete(r.inFlight, string(c.hostID))
	}
	return c
}

// gateID is the raw form of an upstream id.
func gateID(id int64) json.RawMessage { return strconv.AppendInt(nil, id, 10) }

// hostNotification forwards a notification; a cancellation names the
// request by the upstream id.
func (r *Relay) hostNotification(m *message) {
	if m.Method != "notifications/cancelled" {
		r.up.write(line(m))
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    *string         `json:"reason,omitempty"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.RequestID == nil {
		return // malformed: notifications are never answered
	}
	r.mu.Lock()
	id, ok := r.inFlight[string(p.RequestID)]
	r.mu.Unlock()
	if !ok {
		return
	}
	params := []byte(`{"requestId":` + strconv.FormatInt(id, 10))
	if p.Reason != nil {
		params = append(append(params, `,"reason":`...), quote(*p.Reason)...)
	}
	r.up.write(requestLine(nil, m.Method, append(params, '}')))
}

// line is a message re-encoded from its raw members.
func line(m *message) []byte { return requestLine(m.ID, m.Method, m.Params) }

// fromUpstream handles one message from the upstream server.
func (r *Relay) fromUpstream(raw []byte) {
	m, err := parseMessage(raw)
	if err != nil {
		r.o.Log.Warn("gate: dropped a malformed message from the server", "err", err)
		return
	}
	switch {
	case m.isResponse():
		r.upstreamResponse(m)
	case m.isRequest():
		r.upstreamRequest(m)
	default:
		r.upstreamNotification(m)
	}
}

// upstreamRequest answers a server-to-host request itself: ping, and a
// refusal for everything else (sampling, elicitation, roots).
func (r *Relay) upstreamRequest(m *message) {
	if m.Method == "ping" {
		r.up.write(resultLine(m.ID, json.RawMessage(`{}`)))
		return
	}
	r.o.Log.Info("gate: refused a request from the server to the host", "method", m.Method)
	r.up.write(errorLine(m.ID, codeMethodNotFound,
		fmt.Sprintf("mcpreg gate: %s requests from the server are not relayed to the host", m.Method)))
}

// upstreamNotification forwards a notification the host may see.
func (r *Relay) upstreamNotification(m *message) {
	switch m.Method {
	case "notifications/cancelled":
		return // it could only name a request the gate answered itself
	case "notifications/progress":
		if !r.hostIssued(notifiedToken(m.Params)) {
			return
		}
	case "notifications/tools/list_changed":
		r.relist()
		return
	}
	r.host.write(line(m))
}

// hostIssued reports whether a request in flight carries the progress
// token.
func (r *Relay) hostIssued(token string) bool {
	if token == "" {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.pending {
		if c.hostID != nil && c.progress == token {
			return true
		}
	}
	return false
}

// upstreamResponse answers the host's request, through the policy of its
// method; a response to no request in flight is dropped.
func (r *Relay) upstreamResponse(m *message) {
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	c := (*call)(nil)
	if err == nil {
		c = r.take(id)
	}
	if c == nil {
		r.o.Log.Warn("gate: dropped a response from the server to no request in flight", "id", string(m.ID))
		return
	}
	if c.onResult != nil {
		if m.Error == nil {
			c.onResult(m.Result)
		}
		return
	}
	if m.Error != nil {
		r.settle(c, OutcomeFailed, "the server answered with an error", m.Error)
		r.host.write(rawErrorLine(c.hostID, m.Error))
		return
	}
	result := m.Result
	switch c.method {
	case "initialize", "server/discover": // 2025-11-25, 2026-07-28
		if c.method == "initialize" {
			r.mu.Lock()
			r.initResult = result
			r.mu.Unlock()
		}
		if why := r.tools.checkInstructions(result); why != "" {
			r.withhold(why)
			r.host.write(errorLine(c.hostID, codeRefused, "mcpreg gate: "+why))
			return
		}
		var ok bool
		if result, ok = r.serverCapabilities(c, result); !ok {
			return
		}
	case "tools/list":
		result = r.filterList(result, c.page)
	case "prompts/list":
		var withheld []string
		if result, withheld = r.prompts.filterList(result); len(withheld) > 0 {
			r.o.Log.Warn("gate: prompts withheld", "server", r.o.Entry.Name, "version", r.o.Entry.Version, "prompts", withheld)
		}
	case "prompts/get":
		if why := r.prompts.checkGet(c.prompt, result); why != "" {
			r.o.Log.Warn("gate: prompt refused", "server", r.o.Entry.Name, "version", r.o.Entry.Version, "why", why)
			r.host.write(errorLine(c.hostID, codeRefused, "mcpreg gate: "+why))
			return
		}
		var ok bool
		if result, ok = r.untrusted(c, result); !ok {
			return
		}
	case "tools/call", "resources/read":
		var ok bool
		if result, ok = r.untrusted(c, result); !ok {
			return
		}
	}
	r.host.write(resultLine(c.hostID, result))
}

// untrusted handles a result that is untrusted content (see
// handleResult) and settles a call's receipt. It returns the result to
// forward, or false when it answered the host itself.
func (r *Relay) untrusted(c *call, result json.RawMessage) (json.RawMessage, bool) {
	h := r.handleResult(c.method, result)
	if c.receipt != nil {
		c.receipt.Findings = receiptFindings(h.findings)
	}
	if h.withheld == "" {
		if h.note != "" {
			r.o.Log.Warn("gate: result truncated", "server", r.o.Entry.Name, "tool", c.tool, "note", h.note)
		}
		r.settleResult(c, result, h.note)
		return h.result, true
	}
	r.o.Log.Warn("gate: result withheld", "server", r.o.Entry.Name, "method", c.method, "tool", c.tool, "why", h.withheld)
	r.settleResult(c, result, h.withheld)
	msg := fmt.Sprintf("mcpreg gate: %s", h.withheld)
	if c.method != "tools/call" {
		r.host.write(errorLine(c.hostID, codeRefused, msg))
		return nil, false
	}
	// The model learns that the call produced nothing it may read.
	return json.RawMessage(`{"content":[{"type":"text","text":` + string(quote(msg)) + `}],"isError":true}`), true
}

// withhold refuses every further request of the session.
func (r *Relay) withhold(why string) {
	r.o.Log.Warn("gate: server withheld", "server", r.o.Entry.Name, "version", r.o.Entry.Version, "why", why)
	r.mu.Lock()
	r.withheld = why
	r.mu.Unlock()
}

// Withhold stops the session's server from now on, for the rest of the
// session: every request but ping is refused with why (a quarantine seen
// in a fresh discovery document, a document that expired and cannot be
// renewed). The host is told that the tool list changed, so that it asks
// again and hears the refusal.
func (r *Relay) Withhold(why string) {
	r.mu.Lock()
	already, host := r.withheld != "", r.host
	r.mu.Unlock()
	if already {
		return
	}
	r.withhold(why)
	if host != nil {
		host.write([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
	}
}

// settleAll ends every call still awaiting an answer: the host gets an
// error for each of its requests, and each call's receipt says uncertain.
func (r *Relay) settleAll(cause error) {
	r.mu.Lock()
	calls := make([]*call, 0, len(r.pending))
	for id, c := range r.pending {
		calls = append(calls, c)
		delete(r.pending, id)
	}
	clear(r.inFlight)
	r.mu.Unlock()
	why := "the gate stopped"
	if cause != nil {
		why = cause.Error()
	}
	for _, c := range calls {
		if c.hostID == nil {
			continue
		}
		r.settle(c, OutcomeUncertain, "no answer: "+why, nil)
		r.host.write(errorLine(c.hostID, codeUpstream, "mcpreg gate: no answer from the server: "+why))
	}
}

// progressToken is the raw progress token of a request's params, or "".
func progressToken(params json.RawMessage) string {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return string(p.Meta.ProgressToken)
}

// notifiedToken is the raw progress token a progress notification names,
// or "".
func notifiedToken(params json.RawMessage) string {
	var p struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return string(p.ProgressToken)
}

// hasCursor reports whether list params name a cursor (a later page).
func hasCursor(params json.RawMessage) bool {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	return json.Unmarshal(params, &p) == nil && p.Cursor != nil
}
