package gate

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mcpreg/mcpreg/discovery"
)

// The two tools of search mode.
const (
	SearchToolName = "mcpreg_search_tools"
	CallToolName   = "mcpreg_call_tool"
)

// DefaultMaxSearchResults bounds one search's results.
const DefaultMaxSearchResults = 20

// searchOpenTimeout bounds starting one server and listing its tools.
const searchOpenTimeout = 60 * time.Second

// searchTools is the tools/list result of search mode.
var searchTools = json.RawMessage(`{"tools":[` +
	`{"name":"` + SearchToolName + `","title":"Search approved tools","description":"Search the MCP tools this session may use, on every approved server, by words of their name or description. Returns each match's server, tool name, description, risk tier and input schema; call one with ` + CallToolName + `.","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"Words to look for; empty lists every tool."}},"required":["query"],"additionalProperties":false},"annotations":{"readOnlyHint":true,"openWorldHint":false}},` +
	`{"name":"` + CallToolName + `","title":"Call an approved tool","description":"Call a tool found with ` + SearchToolName + `. Every check of the runtime gate applies: the approved definition, the session's scopes, the arguments against the approved input schema, idempotency keys and approvals (in this call's _meta, with the approval digest over the inner arguments), timeouts and result filtering.","inputSchema":{"type":"object","properties":{"server":{"type":"string","description":"The server's registry name, as the search returned it."},"tool":{"type":"string"},"arguments":{"type":"object"}},"required":["server","tool"],"additionalProperties":false}}` +
	`]}`)

// SearchOptions configure a Search.
type SearchOptions struct {
	// Entries are the approved servers the session may use.
	Entries []discovery.Entry
	// Open starts a relay to e's server over its upstream connection; the
	// search runs it and closes the connection when the session ends.
	Open func(ctx context.Context, e discovery.Entry) (*Relay, Conn, error)
	// MaxResults bounds a search's results; 0 means
	// DefaultMaxSearchResults.
	MaxResults int
	// Log receives servers that could not be started.
	Log *slog.Logger
}

// Search is search mode: instead of every server's tools, the host sees
// two tools, one that searches the tools the session may use on every
// approved server (what each server's relay passed: matching pins,
// within the session's scopes) and one that calls a found tool through
// that server's relay, under all its checks. Servers are started when
// the first search or call needs them.
type Search struct {
	o    SearchOptions
	host *lineWriter

	mu         sync.Mutex
	backends   map[string]*backend // by server name
	clientInfo json.RawMessage
	closed     bool
}

// NewSearch returns a search over o.Entries.
func NewSearch(o SearchOptions) *Search {
	if o.MaxResults <= 0 {
		o.MaxResults = DefaultMaxSearchResults
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Search{o: o, backends: map[string]*backend{}}
}

// Run answers the host until its input ends (nil) or ctx does; then every
// server started is stopped.
func (s *Search) Run(ctx context.Context, hostIn io.Reader, hostOut io.Writer) error {
	s.host = &lineWriter{w: hostOut}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer s.close()
	br := bufio.NewReaderSize(hostIn, 64<<10)
	for {
		line, tooLong, err := readLine(br, DefaultMaxMessageBytes)
		switch {
		case tooLong:
			s.host.write(errorLine(nil, codeInvalidRequest, fmt.Sprintf("mcpreg gate: message larger than %d bytes", DefaultMaxMessageBytes)))
		case len(line) > 0:
			s.fromHost(ctx, line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// Withhold withholds one server in every backend started (a quarantine
// seen in a fresh document); a server not started yet is dropped.
func (s *Search) Withhold(name, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.o.Entries = slices.DeleteFunc(slices.Clone(s.o.Entries), func(e discovery.Entry) bool { return e.Name == name })
	if b := s.backends[name]; b != nil {
		b.withhold(why)
	}
}

// Entries are the servers the search still offers.
func (s *Search) Entries() []discovery.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.o.Entries)
}

func (s *Search) close() {
	s.mu.Lock()
	s.closed = true
	all := slices.Collect(maps.Values(s.backends))
	s.mu.Unlock()
	for _, b := range all {
		b.stop()
	}
}

// fromHost answers one host message.
func (s *Search) fromHost(ctx context.Context, line []byte) {
	m, err := parseMessage(line)
	if err != nil {
		code := codeInvalidRequest
		if !json.Valid(line) {
			code = codeParseError
		}
		s.host.write(errorLine(nil, code, "mcpreg gate: "+err.Error()))
		return
	}
	if !m.isRequest() {
		return // notifications are never answered; the gate asked nothing
	}
	switch m.Method {
	case "initialize":
		s.keepClientInfo(m.Params, false)
		s.host.write(resultLine(m.ID, initializeResult(m.Params)))
	case "server/discover":
		s.keepClientInfo(m.Params, true)
		s.host.write(resultLine(m.ID, json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},`+
			`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpreg-gate-search","version":"1"}}}`)))
	case "ping":
		s.host.write(resultLine(m.ID, json.RawMessage(`{}`)))
	case "tools/list":
		s.host.write(resultLine(m.ID, searchTools))
	case "tools/call":
		go s.call(ctx, m)
	default:
		s.host.write(errorLine(m.ID, codeMethodNotFound, fmt.Sprintf("mcpreg gate: search mode serves tools only, not %q", m.Method)))
	}
}

// initializeResult answers a 2025-11-25 (or older) initialize.
func initializeResult(params json.RawMessage) json.RawMessage {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	version := "2025-11-25"
	if slices.Contains([]string{"2025-06-18", "2025-03-26", "2024-11-05"}, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	return json.RawMessage(`{"protocolVersion":` + string(quote(version)) + `,"capabilities":{"tools":{}},` +
		`"serverInfo":{"name":"mcpreg-gate-search","version":"1"},` +
		`"instructions":"Find the tool you need with ` + SearchToolName + `, then call it with ` + CallToolName + `."}`)
}

// keepClientInfo keeps the host's clientInfo, forwarded to the servers.
func (s *Search) keepClientInfo(params json.RawMessage, inMeta bool) {
	var p struct {
		ClientInfo json.RawMessage            `json:"clientInfo"`
		Meta       map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	info := p.ClientInfo
	if inMeta {
		info = p.Meta["io.modelcontextprotocol/clientInfo"]
	}
	if len(info) > 0 && info[0] == '{' {
		s.mu.Lock()
		s.clientInfo = info
		s.mu.Unlock()
	}
}

// searchCall is the params of a call to one of the two tools.
type searchCall struct {
	Name      string `json:"name"`
	Arguments struct {
		Query     *string         `json:"query"`
		Server    string          `json:"server"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"arguments"`
	Meta json.RawMessage `json:"_meta"`
}

// call runs a call to one of the two tools.
func (s *Search) call(ctx context.Context, m *message) {
	var p searchCall
	if err := json.Unmarshal(m.Params, &p); err != nil {
		s.host.write(errorLine(m.ID, codeInvalidParams, "mcpreg gate: tools/call params: "+err.Error()))
		return
	}
	switch p.Name {
	case SearchToolName:
		if p.Arguments.Query == nil {
			s.host.write(toolError(m.ID, `missing required argument "query"`))
			return
		}
		s.host.write(resultLine(m.ID, s.search(ctx, *p.Arguments.Query)))
	case CallToolName:
		s.callTool(ctx, m.ID, p)
	default:
		s.host.write(errorLine(m.ID, codeRefused, fmt.Sprintf("mcpreg gate: search mode has no tool %q: find tools with %s and call them with %s", p.Name, SearchToolName, CallToolName)))
	}
}

// toolError is a tool result with isError set.
func toolError(id json.RawMessage, text string) []byte {
	return resultLine(id, json.RawMessage(`{"content":[{"type":"text","text":`+string(quote("mcpreg gate: "+text))+`}],"isError":true}`))
}

// foundTool is one search result.
type foundTool struct {
	Server      string          `json:"server"`
	Tool        string          `json:"tool"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	RiskTier    string          `json:"riskTier"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	score       int
}

// search starts what is not started yet and ranks the tools passed.
func (s *Search) search(ctx context.Context, query string) json.RawMessage {
	s.mu.Lock()
	entries := slices.Clone(s.o.Entries)
	s.mu.Unlock()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		found    []foundTool
		failures []string
	)
	words := searchWords(query)
	for _, e := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := s.backend(ctx, e)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failures = append(failures, fmt.Sprintf("%s: %v", e.Name, err))
				return
			}
			for _, t := range b.listed() {
				if t.score = matchScore(words, e, t); t.score > 0 || len(words) == 0 {
					found = append(found, t)
				}
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(found, func(a, b foundTool) int {
		return cmp.Or(b.score-a.score, strings.Compare(a.Server, b.Server), strings.Compare(a.Tool, b.Tool))
	})
	truncated := len(found) > s.o.MaxResults
	found = found[:min(len(found), s.o.MaxResults)]
	slices.Sort(failures)
	out := struct {
		Results     []foundTool `json:"results"`
		Truncated   bool        `json:"truncated"`
		Unavailable []string    `json:"unavailable,omitempty"`
	}{Results: append([]foundTool{}, found...), Truncated: truncated, Unavailable: failures}
	structured, _ := json.Marshal(out) // plain values always marshal
	text := fmt.Sprintf("%d tools found", len(found))
	if truncated {
		text += fmt.Sprintf(" (the first %d; narrow the query)", s.o.MaxResults)
	}
	return json.RawMessage(`{"content":[{"type":"text","text":` + string(quote(text+":\n"+string(structured))) + `}],"structuredContent":` + string(structured) + `}`)
}

// searchWords are the lower-case words of a query.
func searchWords(q string) []string {
	return strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// matchScore ranks a tool for the query words: a word in its name counts
// three, in its title or description one, in its server's name or title
// one.
func matchScore(words []string, e discovery.Entry, t foundTool) int {
	name, text, server := strings.ToLower(t.Tool), strings.ToLower(t.Title+" "+t.Description), strings.ToLower(e.Name+" "+e.Title)
	score := 0
	for _, w := range words {
		if strings.Contains(name, w) {
			score += 3
		}
		if strings.Contains(text, w) {
			score++
		}
		if strings.Contains(server, w) {
			score++
		}
	}
	return score
}

// callTool calls a found tool through its server's relay and answers the
// host with the relay's answer, as it is.
func (s *Search) callTool(ctx context.Context, id json.RawMessage, p searchCall) {
	a := p.Arguments
	if a.Server == "" || a.Tool == "" {
		s.host.write(toolError(id, `missing required argument "server" or "tool"`))
		return
	}
	s.mu.Lock()
	i := slices.IndexFunc(s.o.Entries, func(e discovery.Entry) bool { return e.Name == a.Server })
	var e discovery.Entry
	if i >= 0 {
		e = s.o.Entries[i]
	}
	s.mu.Unlock()
	if i < 0 {
		s.host.write(errorLine(id, codeRefused, fmt.Sprintf("mcpreg gate: %q is not an approved server this session may use", a.Server)))
		return
	}
	b, err := s.backend(ctx, e)
	if err != nil {
		s.host.write(errorLine(id, codeUpstream, fmt.Sprintf("mcpreg gate: %s could not be started: %v", a.Server, err)))
		return
	}
	params := []byte(`{"name":` + string(quote(a.Tool)))
	if len(a.Arguments) > 0 {
		params = append(append(params, `,"arguments":`...), a.Arguments...)
	}
	if len(p.Meta) > 0 {
		params = append(append(params, `,"_meta":`...), p.Meta...)
	}
	answer, err := b.request(ctx, "tools/call", append(params, '}'))
	switch {
	case err != nil:
		s.host.write(errorLine(id, codeUpstream, fmt.Sprintf("mcpreg gate: %s: %v", a.Server, err)))
	case answer.Error != nil:
		s.host.write(rawErrorLine(id, answer.Error))
	default:
		s.host.write(resultLine(id, answer.Result))
	}
}

// backend is e's server, started on first use.
func (s *Search) backend(ctx context.Context, e discovery.Entry) (*backend, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("the session ended")
	}
	b := s.backends[e.Name]
	if b == nil {
		b = &backend{entry: e, ready: make(chan struct{}), waits: map[string]chan *message{}, log: s.o.Log}
		s.backends[e.Name] = b
		go b.start(ctx, s.o.Open, s.clientInfo)
	}
	s.mu.Unlock()
	select {
	case <-b.ready:
		return b, b.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// backend is one server's relay, to which the search is the host.
type backend struct {
	entry discovery.Entry
	log   *slog.Logger
	relay *Relay
	conn  Conn
	in    *io.PipeWriter // the relay's host input
	ready chan struct{}
	err   error // why it could not start (set before ready closes)

	mu       sync.Mutex
	nextID   int64
	waits    map[string]chan *message
	tools    []foundTool
	policy   *callPolicy
	withheld string // applied once the relay exists
}

// withhold withholds the server in its relay (now, or once it exists).
func (b *backend) withhold(why string) {
	b.mu.Lock()
	relay := b.relay
	b.withheld, b.tools = why, nil // no longer found
	b.mu.Unlock()
	if relay != nil {
		relay.Withhold(why)
	}
}

// start opens the server, initializes it and lists its tools.
func (b *backend) start(ctx context.Context, open func(context.Context, discovery.Entry) (*Relay, Conn, error), clientInfo json.RawMessage) {
	defer close(b.ready)
	relay, conn, err := open(context.WithoutCancel(ctx), b.entry)
	if err != nil {
		b.err = err
		b.log.Warn("gate: search mode could not start a server", "server", b.entry.Name, "err", err)
		return
	}
	r, w := io.Pipe()
	b.mu.Lock()
	b.relay, b.conn, b.in, b.policy = relay, conn, w, relay.policy
	if b.withheld != "" {
		relay.Withhold(b.withheld)
	}
	b.mu.Unlock()
	runCtx := context.WithoutCancel(ctx)
	go func() { _ = relay.Run(runCtx, r, writerFunc(b.fromRelay), conn.Reader(), conn.Writer()) }()
	ctx, cancel := context.WithTimeout(ctx, searchOpenTimeout)
	defer cancel()
	if len(clientInfo) == 0 {
		clientInfo = json.RawMessage(`{"name":"mcpreg-gate-search","version":"1"}`)
	}
	init, err := b.request(ctx, "initialize", json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":`+string(clientInfo)+`}`))
	if err == nil && init.Error != nil {
		err = fmt.Errorf("initialize: %s", init.Error)
	}
	if err == nil {
		b.notify("notifications/initialized")
		err = b.list(ctx)
	}
	if err != nil {
		b.err = err
		b.stop()
	}
}

// list lists the tools the relay passes, every page.
func (b *backend) list(ctx context.Context) error {
	var tools []foundTool
	cursor := ""
	for range maxRelistPages {
		params := json.RawMessage(`{}`)
		if cursor != "" {
			params = json.RawMessage(`{"cursor":` + string(quote(cursor)) + `}`)
		}
		answer, err := b.request(ctx, "tools/list", params)
		if err != nil {
			return err
		}
		if answer.Error != nil {
			return fmt.Errorf("tools/list: %s", answer.Error)
		}
		var page struct {
			Tools []struct {
				Name        string          `json:"name"`
				Title       string          `json:"title"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(answer.Result, &page); err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		for _, t := range page.Tools {
			tools = append(tools, foundTool{Server: b.entry.Name, Tool: t.Name, Title: t.Title, Description: t.Description,
				RiskTier: string(b.policy.rule(t.Name).RiskTier), InputSchema: t.InputSchema})
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	b.mu.Lock()
	b.tools = tools
	b.mu.Unlock()
	return nil
}

func (b *backend) listed() []foundTool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.tools)
}

// request sends the relay one request and waits for its answer.
func (b *backend) request(ctx context.Context, method string, params json.RawMessage) (*message, error) {
	ch := make(chan *message, 1)
	b.mu.Lock()
	b.nextID++
	id := strconv.FormatInt(b.nextID, 10)
	b.waits[id] = ch
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.waits, id)
		b.mu.Unlock()
	}()
	if _, err := b.in.Write(append(requestLine(json.RawMessage(id), method, params), '\n')); err != nil {
		return nil, fmt.Errorf("the server's session ended: %w", err)
	}
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		_, _ = b.in.Write(append(requestLine(nil, "notifications/cancelled", json.RawMessage(`{"requestId":`+id+`}`)), '\n'))
		return nil, ctx.Err()
	}
}

func (b *backend) notify(method string) {
	_, _ = b.in.Write(append(requestLine(nil, method, nil), '\n'))
}

// fromRelay takes what the relay passes to its host: answers to the
// search's requests; a tools/list_changed makes it list again.
func (b *backend) fromRelay(line []byte) {
	m, err := parseMessage(bytes.Clone(line))
	if err != nil {
		return
	}
	if m.isNotification() && m.Method == "notifications/tools/list_changed" {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), searchOpenTimeout)
			defer cancel()
			if err := b.list(ctx); err != nil {
				b.log.Warn("gate: search mode could not list a server again", "server", b.entry.Name, "err", err)
			}
		}()
		return
	}
	if !m.isResponse() {
		return
	}
	b.mu.Lock()
	ch := b.waits[string(m.ID)]
	b.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

// stop ends the relay and the server.
func (b *backend) stop() {
	if b.in != nil {
		_ = b.in.Close()
	}
	if b.conn != nil {
		if err := b.conn.Close(); err != nil {
			b.log.Warn("gate: stopping a server", "server", b.entry.Name, "err", err)
		}
	}
}
