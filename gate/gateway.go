package gate

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpreg/mcpreg/discovery"
)

// Gateway defaults.
const (
	DefaultViewRefresh = 30 * time.Second
	DefaultSessionIdle = 10 * time.Minute
	DefaultMaxSessions = 256
	// DefaultMaxTokenSessions bounds the sessions of one token, so that
	// one host cannot take every session of the gateway.
	DefaultMaxTokenSessions = 32
)

// ErrTokenRefused marks a View error that means the token itself was
// refused (unknown, revoked, not a host token): the client gets 401.
var ErrTokenRefused = errors.New("the registry refused the token")

// View is what one host token may use: its verified discovery document
// and the session scopes the gateway grants it.
type View struct {
	Doc    *discovery.Document
	Scopes []string
	// Principal names the token's holder, for logs.
	Principal string
}

// Conn is an upstream server connection: lines of JSON-RPC each way.
type Conn interface {
	Reader() io.Reader
	Writer() io.Writer
	Close() error
}

// GatewayOptions configure a Gateway.
type GatewayOptions struct {
	// View validates a host token against the registry and returns its
	// verified view; an error wrapping ErrTokenRefused is answered 401,
	// any other (an unreachable registry) falls back to the last view of
	// that token until its document expires.
	View func(ctx context.Context, token string) (*View, error)
	// Connect opens a session's upstream: the version's remote, or its
	// stdio package started confined.
	Connect func(ctx context.Context, e discovery.Entry) (Conn, error)
	// Relay is the template of every session's relay options; Entry,
	// Scopes, Receipts and Report are set per session.
	Relay Options
	// Receipts returns the receipt sink of a token's sessions (receipts
	// go to the registry under the token that made the call).
	Receipts func(token string) ReceiptSink
	// Report returns the mismatch reporter of a token's session of e; nil
	// reports nothing.
	Report func(token string, e discovery.Entry) func(tools, init json.RawMessage)
	// Refresh is how long a token's view is used before it is read
	// again; 0 means DefaultViewRefresh.
	Refresh time.Duration
	// AllowedHosts are the Host header values accepted (DNS rebinding of a
	// loopback listener); empty accepts any.
	AllowedHosts []string
	// AllowedOrigins are the Origin header values accepted
	// ("https://app.example"); a request without Origin is accepted.
	AllowedOrigins []string
	// SessionIdle ends a session unused this long; 0 means
	// DefaultSessionIdle.
	SessionIdle time.Duration
	// MaxSessions bounds open sessions; 0 means DefaultMaxSessions.
	MaxSessions int
	// MaxTokenSessions bounds the open sessions of one token; 0 means
	// DefaultMaxTokenSessions.
	MaxTokenSessions int
	// SearchMode also serves /search/mcp: the two tools of search mode
	// (see Search) over every server of the client's view.
	SearchMode bool
	// Log receives sessions opened and closed and what was refused.
	Log *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Gateway serves the servers of each client's discovery view over the
// Streamable HTTP transport at /servers/{name}/mcp, each session through a
// Relay of its own. The client's token is checked on every request and is
// never sent upstream. Sessions are the gateway's own: a random id issued
// on the answer to the first request (initialize, or server/discover under
// 2026-07-28), bound to the token and server that opened it; an unknown or
// expired id is answered 404. Requests are answered as an event stream when
// the client accepts one (each message of the relay's output one event,
// each filtered on its own before it is written), else as JSON. No event
// ids are issued, so nothing is ever replayed (Last-Event-ID is ignored).
type Gateway struct {
	o   GatewayOptions
	mux *http.ServeMux

	mu       sync.Mutex
	views    map[string]*cachedView // by token digest
	sessions map[string]*gwSession  // by session id
	closed   bool
}

type cachedView struct {
	mu      sync.Mutex
	view    *View
	fetched time.Time
}

// NewGateway returns a gateway; call Close to end its sessions.
func NewGateway(o GatewayOptions) *Gateway {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Refresh <= 0 {
		o.Refresh = DefaultViewRefresh
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = DefaultSessionIdle
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxTokenSessions <= 0 {
		o.MaxTokenSessions = DefaultMaxTokenSessions
	}
	if o.Relay.MaxMessageBytes <= 0 {
		o.Relay.MaxMessageBytes = DefaultMaxMessageBytes
	}
	g := &Gateway{o: o, views: map[string]*cachedView{}, sessions: map[string]*gwSession{}}
	g.mux = http.NewServeMux()
	g.mux.HandleFunc("/servers/{name...}", g.serveServer)
	if o.SearchMode {
		g.mux.HandleFunc(SearchPath, g.serveServer)
	}
	return g
}

// ServeHTTP checks Host and Origin, then serves /servers/{name}/mcp.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(g.o.AllowedHosts) > 0 && !slices.Contains(g.o.AllowedHosts, strings.ToLower(r.Host)) {
		httpError(w, http.StatusForbidden, fmt.Sprintf("Host %q is not one this gateway serves (DNS rebinding?)", r.Host))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !slices.Contains(g.o.AllowedOrigins, origin) {
		httpError(w, http.StatusForbidden, fmt.Sprintf("Origin %q is not allowed", origin))
		return
	}
	g.mux.ServeHTTP(w, r)
}

// httpError answers with a JSON-RPC error body (id null) and status.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpreg gate"`)
	}
	w.WriteHeader(status)
	_, _ = w.Write(errorLine(nil, codeRefused, "mcpreg gate: "+msg))
}

// SearchPath is the search mode endpoint of a gateway with SearchMode.
const SearchPath = "/search/mcp"

// searchSession is the server name of search sessions.
const searchSession = ""

// serveServer serves one server's MCP endpoint, or search mode's.
func (g *Gateway) serveServer(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutSuffix(r.PathValue("name"), "/mcp")
	switch {
	case r.URL.Path == SearchPath:
		name = searchSession
	case !ok || name == "":
		httpError(w, http.StatusNotFound, "not found: the gateway serves /servers/{name}/mcp")
		return
	}
	token, ok := bearer(r)
	if !ok {
		httpError(w, http.StatusUnauthorized, "a host token is required (Authorization: Bearer ...)")
		return
	}
	view, status, err := g.view(r.Context(), token)
	if err != nil {
		httpError(w, status, err.Error())
		return
	}
	entry := findEntry(view.Doc, name)
	switch r.Method {
	case http.MethodPost:
		g.post(w, r, token, name, view, entry)
	case http.MethodGet:
		g.get(w, r, token, name, view)
	case http.MethodDelete:
		s, status, msg := g.session(r, token, name)
		if s == nil {
			httpError(w, status, msg)
			return
		}
		g.closeSession(s, "the client ended it")
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, r.Method+" is not an MCP method of this endpoint")
	}
}

// bearer is the request's bearer token.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

func findEntry(doc *discovery.Document, name string) *discovery.Entry {
	for i := range doc.Servers {
		if doc.Servers[i].Name == name {
			return &doc.Servers[i]
		}
	}
	return nil
}

// tokenKey identifies a token in memory without keeping it as a map key.
func tokenKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// view is the token's view, read again once older than Refresh; when the
// registry cannot be reached the last one holds until its document
// expires.
func (g *Gateway) view(ctx context.Context, token string) (*View, int, error) {
	key := tokenKey(token)
	g.mu.Lock()
	cv := g.views[key]
	if cv == nil {
		cv = &cachedView{}
		g.views[key] = cv
	}
	g.mu.Unlock()
	cv.mu.Lock()
	defer cv.mu.Unlock()
	now := g.o.Now()
	if cv.view != nil && now.Sub(cv.fetched) < g.o.Refresh {
		return cv.view, 0, nil
	}
	v, err := g.o.View(ctx, token)
	switch {
	case err == nil:
		cv.view, cv.fetched = v, now
		return v, 0, nil
	case !errors.Is(err, ErrTokenRefused) && cv.view != nil && now.Before(cv.view.Doc.ExpiresAt):
		g.o.Log.Warn("gate: the registry could not be asked; the discovery document in hand holds until it expires",
			"principal", cv.view.Principal, "expires", cv.view.Doc.ExpiresAt.UTC().Format(time.RFC3339), "err", err)
		return cv.view, 0, nil
	}
	// No view to use: forget the token (a stream of made-up tokens must
	// not fill memory) and say why.
	expired := cv.view
	g.mu.Lock()
	if g.views[key] == cv {
		delete(g.views, key)
	}
	g.mu.Unlock()
	cv.view = nil
	switch {
	case errors.Is(err, ErrTokenRefused):
		return nil, http.StatusUnauthorized, err
	case expired != nil:
		return nil, http.StatusServiceUnavailable, fmt.Errorf("the discovery document expired at %s and no fresh one could be read: %w",
			expired.Doc.ExpiresAt.UTC().Format(time.RFC3339), err)
	default:
		return nil, http.StatusServiceUnavailable, fmt.Errorf("no verified discovery document for this token: %w", err)
	}
}

// post handles one client message.
func (g *Gateway) post(w http.ResponseWriter, r *http.Request, token, name string, view *View, entry *discovery.Entry) {
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(g.o.Relay.MaxMessageBytes)+1))
	switch {
	case err != nil:
		httpError(w, http.StatusBadRequest, "reading the request: "+err.Error())
		return
	case len(body) > g.o.Relay.MaxMessageBytes:
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("message larger than %d bytes", g.o.Relay.MaxMessageBytes))
		return
	}
	if media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); media != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	m, err := parseMessage(body)
	if err != nil {
		status := http.StatusBadRequest
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		code := codeInvalidRequest
		if !json.Valid(body) {
			code = codeParseError
		}
		_, _ = w.Write(errorLine(nil, code, "mcpreg gate: "+err.Error()))
		return
	}
	var s *gwSession
	if r.Header.Get(headerSession) == "" {
		if !m.isRequest() || (m.Method != "initialize" && m.Method != "server/discover") {
			httpError(w, http.StatusBadRequest, "no "+headerSession+" header: a session starts with initialize (2025-11-25) or server/discover (2026-07-28)")
			return
		}
		if entry == nil && name != searchSession {
			writeRPCError(w, m.ID, codeRefused, fmt.Sprintf("mcpreg gate: %s is not approved for this host", name))
			return
		}
		if s, err = g.open(context.WithoutCancel(r.Context()), token, name, view); err != nil {
			writeRPCError(w, m.ID, codeUpstream, "mcpreg gate: "+err.Error())
			return
		}
		w.Header().Set(headerSession, s.id)
	} else {
		var status int
		var msg string
		if s, status, msg = g.session(r, token, name); s == nil {
			httpError(w, status, msg)
			return
		}
	}
	s.keepApproved(view)
	if !m.isRequest() {
		s.send(compact(body))
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s.answer(w, r, m, compact(body))
}

// compact puts a message on one line.
func compact(b []byte) []byte {
	if !bytes.ContainsAny(b, "\r\n") {
		return b
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// writeRPCError answers a request with a JSON-RPC error (HTTP 200).
func writeRPCError(w http.ResponseWriter, id json.RawMessage, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(errorLine(id, code, msg))
}

// get opens the session's stream of server notifications.
func (g *Gateway) get(w http.ResponseWriter, r *http.Request, token, name string, view *View) {
	if r.Header.Get(headerSession) == "" {
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, "a stream needs a session: "+headerSession+" is missing")
		return
	}
	s, status, msg := g.session(r, token, name)
	if s == nil {
		httpError(w, status, msg)
		return
	}
	s.keepApproved(view)
	s.stream(w, r)
}

// session finds the session a request names; nil with the status and
// message to answer when there is none for this token and server.
func (g *Gateway) session(r *http.Request, token, name string) (*gwSession, int, string) {
	id := r.Header.Get(headerSession)
	if id == "" {
		return nil, http.StatusBadRequest, headerSession + " is missing"
	}
	g.mu.Lock()
	s := g.sessions[id]
	g.mu.Unlock()
	if s == nil || s.token != tokenKey(token) || s.name != name || s.done() {
		return nil, http.StatusNotFound, "session " + headerSession + " is unknown or expired: start a new one"
	}
	s.touch(g.o.Now())
	return s, 0, ""
}

// open starts a session: for a server, its upstream and its relay; for
// search mode, a Search over the view (servers start on first use).
func (g *Gateway) open(ctx context.Context, token, name string, view *View) (*gwSession, error) {
	key := tokenKey(token)
	g.mu.Lock()
	full, closed, mine := len(g.sessions) >= g.o.MaxSessions, g.closed, 0
	for _, s := range g.sessions {
		if s.token == key {
			mine++
		}
	}
	g.mu.Unlock()
	switch {
	case closed:
		return nil, errors.New("the gateway is shutting down")
	case mine >= g.o.MaxTokenSessions:
		return nil, fmt.Errorf("this host has %d sessions open, its limit: end one (DELETE) before starting another", g.o.MaxTokenSessions)
	case full:
		return nil, fmt.Errorf("the gateway has %d sessions open, its limit: try again later", g.o.MaxSessions)
	}
	s := &gwSession{id: newSessionID(), token: key, name: name, log: g.o.Log,
		waiters: map[string]*waiter{}, progress: map[string]*waiter{}, end: make(chan struct{}), last: g.o.Now()}
	if name == searchSession {
		s.search = NewSearch(SearchOptions{Entries: view.Doc.Servers, Log: g.o.Log, Open: func(ctx context.Context, e discovery.Entry) (*Relay, Conn, error) {
			up, err := g.o.Connect(ctx, e)
			if err != nil {
				return nil, nil, err
			}
			return NewRelay(g.relayOptions(token, e, view)), up, nil
		}})
	} else {
		e := *findEntry(view.Doc, name)
		up, err := g.o.Connect(ctx, e)
		if err != nil {
			return nil, fmt.Errorf("connecting to %s@%s: %w", e.Name, e.Version, err)
		}
		s.entry, s.up, s.relay = e, up, NewRelay(g.relayOptions(token, e, view))
	}
	s.hostIn, s.hostInW = io.Pipe()
	g.mu.Lock()
	g.sessions[s.id] = s
	g.mu.Unlock()
	go s.run(g)
	g.o.Log.Info("gate: session opened", "session", s.id, "server", cmp.Or(name, "search mode"), "version", s.entry.Version, "principal", view.Principal)
	return s, nil
}

// relayOptions are the options of a relay of token's session to e.
func (g *Gateway) relayOptions(token string, e discovery.Entry, view *View) Options {
	o := g.o.Relay
	o.Entry, o.Scopes = e, view.Scopes
	if g.o.Receipts != nil {
		o.Receipts = g.o.Receipts(token)
	}
	if g.o.Report != nil {
		o.Report = g.o.Report(token, e)
	}
	return o
}

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// closeSession ends s and forgets its id (later requests naming it get 404).
func (g *Gateway) closeSession(s *gwSession, why string) {
	g.mu.Lock()
	delete(g.sessions, s.id)
	g.mu.Unlock()
	if s.close() {
		g.o.Log.Info("gate: session closed", "session", s.id, "server", cmp.Or(s.name, "search mode"), "why", why)
	}
}

// Reap ends the sessions idle longer than SessionIdle; Serve calls it
// every minute.
func (g *Gateway) Reap() {
	now := g.o.Now()
	g.mu.Lock()
	var idle []*gwSession
	for _, s := range g.sessions {
		if now.Sub(s.lastUsed()) > g.o.SessionIdle {
			idle = append(idle, s)
		}
	}
	g.mu.Unlock()
	for _, s := range idle {
		g.closeSession(s, "idle")
	}
}

// Sessions is the number of open sessions.
func (g *Gateway) Sessions() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.sessions)
}

// Close ends every session.
func (g *Gateway) Close() {
	g.mu.Lock()
	g.closed = true
	all := slices.Collect(maps.Values(g.sessions))
	g.mu.Unlock()
	for _, s := range all {
		g.closeSession(s, "the gateway is shutting down")
	}
}

// Serve serves l until ctx ends, reaping idle sessions; then it closes
// every session.
func (g *Gateway) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		tick := time.NewTicker(time.Minute)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				g.Close()
				_ = srv.Shutdown(sctx)
				cancel()
				return
			case <-tick.C:
				g.Reap()
			}
		}
	}()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// gwSession is one client session: a relay between the client's requests
// and one upstream connection.
type gwSession struct {
	id    string
	token string // digest
	name  string // the server, or searchSession
	// A server's session has entry, up and relay; a search session search.
	entry  discovery.Entry
	up     Conn
	relay  *Relay
	search *Search
	log    *slog.Logger

	hostIn  *io.PipeReader // the relay's host input
	hostInW *io.PipeWriter

	mu       sync.Mutex
	waiters  map[string]*waiter // by raw request id
	progress map[string]*waiter // by raw progress token
	notify   *waiter            // the GET stream, when open
	last     time.Time
	end      chan struct{}
	ended    bool
}

// run relays (or searches) until the session closes or the upstream ends.
func (s *gwSession) run(g *Gateway) {
	if s.search != nil {
		_ = s.search.Run(context.Background(), s.hostIn, writerFunc(s.fromRelay))
		return
	}
	err := s.relay.Run(context.Background(), s.hostIn, writerFunc(s.fromRelay), s.up.Reader(), s.up.Writer())
	if errors.Is(err, ErrUpstreamClosed) {
		g.closeSession(s, "the upstream server ended")
	}
}

// waiter is an open request or stream, waiting for messages.
type waiter struct {
	ch   chan relayed
	gone chan struct{} // closed when it stops reading
}

// relayed is a message for a waiter; final marks the response that ends
// a request.
type relayed struct {
	msg   []byte
	final bool
}

func newWaiter() *waiter { return &waiter{ch: make(chan relayed, 8), gone: make(chan struct{})} }

// writerFunc adapts a function taking whole lines to io.Writer (the relay
// writes one line per call).
type writerFunc func([]byte)

func (f writerFunc) Write(b []byte) (int, error) {
	f(bytes.TrimSuffix(b, []byte("\n")))
	return len(b), nil
}

// fromRelay routes one message the relay lets through to the client: a
// response to the request it answers, a progress notification to the
// request that issued its token, anything else to the session's stream.
func (s *gwSession) fromRelay(line []byte) {
	h, _ := peekHead(line)
	msg := bytes.Clone(line)
	s.mu.Lock()
	var to *waiter
	switch {
	case h.isResponse():
		to = s.waiters[string(h.ID)]
	case h.Method == "notifications/progress":
		to = s.progress[string(h.ProgressToken)]
	default:
		to = s.notify
	}
	s.mu.Unlock()
	if to == nil {
		s.log.Debug("gate: a message for no open request or stream was dropped", "session", s.id, "method", h.Method)
		return
	}
	select {
	case to.ch <- relayed{msg: msg, final: h.isResponse()}:
	case <-to.gone:
	case <-s.end:
	}
}

// send gives the relay one client message.
func (s *gwSession) send(line []byte) {
	_, _ = s.hostInW.Write(append(line, '\n'))
}

// answer relays a request and writes what comes back for it: its
// progress notifications and its response, as events when the client
// accepts a stream, else the response alone as JSON.
func (s *gwSession) answer(w http.ResponseWriter, r *http.Request, m *message, line []byte) {
	key := string(m.ID)
	wt := newWaiter()
	token := progressToken(m.Params)
	s.mu.Lock()
	if _, dup := s.waiters[key]; dup {
		s.mu.Unlock()
		writeRPCError(w, m.ID, codeInvalidRequest, fmt.Sprintf("mcpreg gate: request id %s is already in flight", key))
		return
	}
	s.waiters[key] = wt
	if token != "" {
		s.progress[token] = wt
	}
	s.mu.Unlock()
	defer func() {
		close(wt.gone)
		s.mu.Lock()
		delete(s.waiters, key)
		if token != "" && s.progress[token] == wt {
			delete(s.progress, token)
		}
		s.mu.Unlock()
	}()
	s.send(line)
	stream := acceptsStream(r)
	if stream {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
	}
	flusher, _ := w.(http.Flusher)
	for {
		select {
		case rm := <-wt.ch:
			msg, final := rm.msg, rm.final
			switch {
			case stream:
				_, _ = w.Write(sseEvent(msg))
				if flusher != nil {
					flusher.Flush()
				}
			case final:
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(msg)
			}
			if final {
				return
			}
		case <-r.Context().Done():
			// The client went away: cancel the request upstream.
			s.send(requestLine(nil, "notifications/cancelled", fmt.Appendf(nil, `{"requestId":%s,"reason":"the client closed the request"}`, m.ID)))
			return
		case <-s.end:
			if !stream {
				writeRPCError(w, m.ID, codeUpstream, "mcpreg gate: the session ended before the server answered")
			} else {
				_, _ = w.Write(sseEvent(errorLine(m.ID, codeUpstream, "mcpreg gate: the session ended before the server answered")))
			}
			return
		}
	}
}

// acceptsStream reports whether the client accepts an event stream.
func acceptsStream(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		media, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
		if media == "text/event-stream" {
			return true
		}
	}
	return false
}

// stream serves the session's own event stream (one at a time).
func (s *gwSession) stream(w http.ResponseWriter, r *http.Request) {
	wt := newWaiter()
	s.mu.Lock()
	if s.notify != nil {
		s.mu.Unlock()
		httpError(w, http.StatusConflict, "the session's stream is already open")
		return
	}
	s.notify = wt
	s.mu.Unlock()
	defer func() {
		close(wt.gone)
		s.mu.Lock()
		if s.notify == wt {
			s.notify = nil
		}
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	for {
		select {
		case rm := <-wt.ch:
			_, _ = w.Write(sseEvent(rm.msg))
			if flusher != nil {
				flusher.Flush()
			}
		case <-r.Context().Done():
			return
		case <-s.end:
			return
		}
	}
}

// keepApproved withholds a server of the session once the token's view
// no longer lists its version (quarantined, revoked, restricted).
func (s *gwSession) keepApproved(view *View) {
	withhold := func(e discovery.Entry, with func(why string)) {
		if now := findEntry(view.Doc, e.Name); now == nil || now.Version != e.Version {
			with(fmt.Sprintf("%s@%s is no longer the approved version this host may use (quarantined, revoked, restricted or superseded): start a new session",
				e.Name, e.Version))
		}
	}
	if s.search == nil {
		withhold(s.entry, s.relay.Withhold)
		return
	}
	for _, e := range s.search.Entries() {
		withhold(e, func(why string) { s.search.Withhold(e.Name, why) })
	}
}

func (s *gwSession) touch(now time.Time) {
	s.mu.Lock()
	s.last = now
	s.mu.Unlock()
}

func (s *gwSession) lastUsed() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *gwSession) done() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// close ends the relay and the upstream; false when already closed.
func (s *gwSession) close() bool {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return false
	}
	s.ended = true
	close(s.end)
	s.mu.Unlock()
	_ = s.hostInW.Close() // the relay's host input ends: Run returns
	if s.up != nil {
		if err := s.up.Close(); err != nil {
			s.log.Warn("gate: closing the upstream", "session", s.id, "err", err)
		}
	}
	return true
}
