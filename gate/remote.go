package gate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Streamable HTTP headers (MCP 2025-11-25 and 2026-07-28).
const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "Mcp-Protocol-Version"
	headerMethod   = "Mcp-Method"
	headerName     = "Mcp-Name"
	// metaProtocolVersion is where a 2026-07-28 request carries its
	// protocol version.
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	// statelessVersion is the first protocol version without the
	// initialize handshake, whose requests name their method in headers.
	statelessVersion = "2026-07-28"
)

// remoteUserAgent is what the gate calls itself upstream.
const remoteUserAgent = "mcpreg-gate"

// remoteNotifyTimeout bounds posting a notification or response upstream.
const remoteNotifyTimeout = 10 * time.Second

// maxRemoteInFlight bounds the requests posted upstream at once.
const maxRemoteInFlight = 64

// RemoteOptions configure a Remote.
type RemoteOptions struct {
	// URL is the server's Streamable HTTP endpoint.
	URL string
	// HTTP sends the requests; nil means a client of the remote's own
	// (NewRemoteClient), whose connections close with it. Share one
	// between many remotes to reuse connections. Whatever it is, the gate adds no credentials of its own
	// and never the host's: the remote gets no Authorization header.
	HTTP *http.Client
	// Log receives what went wrong upstream; nil discards.
	Log *slog.Logger
	// MaxMessageBytes bounds one message from the server; 0 means
	// DefaultMaxMessageBytes.
	MaxMessageBytes int
}

// Remote is an MCP server reached over the Streamable HTTP transport,
// adapted to the newline-delimited streams a Relay reads and writes: each
// line the relay writes is posted, and each message the server answers
// with (a JSON body, or each event of an SSE stream on its own) becomes a
// line the relay reads and judges on its own. Requests are posted
// concurrently; initialize and server/discover are posted alone, so that
// the session id and protocol version they settle are on every later
// request. An HTTP failure is turned into a JSON-RPC error for the
// request it answered. After a 2025-11-25 initialize the server's own
// stream (GET) is opened for its notifications. No event ids are kept, so
// nothing is replayed.
type Remote struct {
	o         RemoteOptions
	ownClient bool // o.HTTP is the remote's own: its connections end with it
	ctx       context.Context
	cancel    context.CancelFunc

	// the relay writes to inW; pump reads inR. pump writes outW; the relay
	// reads outR.
	inR  *io.PipeReader
	inW  *io.PipeWriter
	outR *io.PipeReader
	outW *io.PipeWriter

	writeMu sync.Mutex // one line at a time to outW
	slots   chan struct{}
	wg      sync.WaitGroup

	mu       sync.Mutex
	session  string
	version  string                        // the protocol version settled
	inFlight map[string]context.CancelFunc // by raw request id
	closed   bool
	once     sync.Once
}

// DialRemote checks the URL and starts relaying; nothing is sent before
// the relay writes its first message.
func DialRemote(o RemoteOptions) (*Remote, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("remote %q: want an http(s) URL with a host and no user info", o.URL)
	}
	ownClient := o.HTTP == nil
	if ownClient {
		o.HTTP = NewRemoteClient()
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	r := &Remote{o: o, ownClient: ownClient, slots: make(chan struct{}, maxRemoteInFlight), inFlight: map[string]context.CancelFunc{}}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.inR, r.inW = io.Pipe()
	r.outR, r.outW = io.Pipe()
	r.wg.Add(1)
	go r.pump()
	return r, nil
}

// NewRemoteClient is an HTTP client for remotes: it follows no redirects
// (a 3xx is an error naming it) and keeps enough idle connections for many
// sessions to one server.
func NewRemoteClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Reader is what the server says, one message per line: the relay's
// upstream input.
func (r *Remote) Reader() io.Reader { return r.outR }

// Writer takes the relay's messages for the server, one per line.
func (r *Remote) Writer() io.Writer { return r.inW }

// Close ends the session: in-flight requests are abandoned, the server is
// told the session ended (DELETE) and Reader ends.
func (r *Remote) Close() error {
	r.once.Do(func() {
		r.mu.Lock()
		r.closed = true
		session := r.session
		r.mu.Unlock()
		r.cancel()
		_ = r.inR.CloseWithError(errors.New("the remote session is closed"))
		r.wg.Wait()
		if session != "" {
			r.deleteSession(session)
		}
		if r.ownClient {
			r.o.HTTP.CloseIdleConnections()
		}
		_ = r.outW.Close()
	})
	return nil
}

// deleteSession tells the server the session ended (best effort).
func (r *Remote) deleteSession(session string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, r.o.URL, nil)
	if err != nil {
		return
	}
	req.Header.Set(headerSession, session)
	req.Header.Set("User-Agent", remoteUserAgent)
	if resp, err := r.o.HTTP.Do(req); err == nil {
		_ = resp.Body.Close()
	}
}

// pump posts every line the relay writes.
func (r *Remote) pump() {
	defer r.wg.Done()
	br := bufio.NewReaderSize(r.inR, 64<<10)
	for {
		line, tooLong, err := readLine(br, r.o.MaxMessageBytes)
		if len(line) > 0 && !tooLong {
			r.send(line)
		}
		if err != nil {
			return
		}
	}
}

// outgoing is what the gate needs to know of a message it posts.
type outgoing struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	p      outParams
}

// outParams are the members of a message's params the transport reads.
type outParams struct {
	Name string                     `json:"name"`
	URI  string                     `json:"uri"`
	Meta map[string]json.RawMessage `json:"_meta"`
	// RequestID is what notifications/cancelled cancels.
	RequestID json.RawMessage `json:"requestId"`
}

// send posts one message: requests in a goroutine of their own (but the
// ones that settle the session, which are waited for), the rest in order.
func (r *Remote) send(line []byte) {
	var m outgoing
	if err := json.Unmarshal(line, &m); err != nil {
		r.o.Log.Warn("gate: a message for the remote server is not JSON, dropped", "err", err)
		return
	}
	if len(m.Params) > 0 && m.Params[0] == '{' {
		_ = json.Unmarshal(m.Params, &m.p) // params the gate cannot read are still sent
	}
	if m.Method == "notifications/cancelled" {
		r.abandon(m.p.RequestID)
	}
	isRequest := m.ID != nil && m.Method != ""
	if !isRequest || m.Method == "initialize" || m.Method == "server/discover" {
		r.post(line, m)
		return
	}
	select {
	case r.slots <- struct{}{}:
	case <-r.ctx.Done():
		return
	}
	r.wg.Add(1)
	go func() {
		defer func() { <-r.slots; r.wg.Done() }()
		r.post(line, m)
	}()
}

// abandon stops waiting for the answer to a cancelled request.
func (r *Remote) abandon(id json.RawMessage) {
	if id == nil {
		return
	}
	r.mu.Lock()
	cancel := r.inFlight[string(id)]
	r.mu.Unlock()
	if cancel != nil {
		// After the notification itself reached the server (it is posted
		// next, in order): give it a moment, then stop reading.
		time.AfterFunc(time.Second, cancel)
	}
}

// post sends one message and relays what the server answers.
func (r *Remote) post(line []byte, m outgoing) {
	isRequest := m.ID != nil && m.Method != ""
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	if isRequest {
		r.mu.Lock()
		r.inFlight[string(m.ID)] = cancel
		r.mu.Unlock()
		defer func() {
			r.mu.Lock()
			delete(r.inFlight, string(m.ID))
			r.mu.Unlock()
		}()
	} else {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, remoteNotifyTimeout)
		defer stop()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.o.URL, bytes.NewReader(line))
	if err != nil {
		r.fail(m, fmt.Sprintf("the remote server could not be asked: %v", err))
		return
	}
	r.setHeaders(req, m)
	resp, err := r.o.HTTP.Do(req)
	if err != nil {
		if r.ctx.Err() == nil && ctx.Err() == nil {
			r.fail(m, fmt.Sprintf("the remote server could not be reached: %v", err))
		}
		return
	}
	defer func() { _ = resp.Body.Close() }()
	if s := resp.Header.Get(headerSession); s != "" {
		r.mu.Lock()
		if r.session == "" {
			r.session = s
		}
		r.mu.Unlock()
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && r.sessionID() != "":
		r.fail(m, "the remote server ended the session (HTTP 404)")
		return
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		r.o.Log.Warn("gate: the remote server refused a message", "method", m.Method, "status", resp.StatusCode)
		r.fail(m, fmt.Sprintf("the remote server answered HTTP %d", resp.StatusCode))
		return
	case !isRequest:
		if m.Method == "notifications/initialized" {
			r.listen()
		}
		return
	}
	if !r.relayBody(resp, m) && ctx.Err() == nil {
		r.fail(m, "the remote server's answer ended without a response to the request")
	}
}

// relayBody relays a response body (JSON or SSE); false when it held no
// response to m and no error was given for it yet.
func (r *Remote) relayBody(resp *http.Response, m outgoing) bool {
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch media {
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(r.o.MaxMessageBytes)+1))
		switch {
		case err != nil:
			r.fail(m, fmt.Sprintf("reading the remote server's answer: %v", err))
		case len(body) > r.o.MaxMessageBytes:
			r.fail(m, fmt.Sprintf("the remote server's answer is larger than %d bytes", r.o.MaxMessageBytes))
		default:
			return r.deliver(body, m)
		}
	case "text/event-stream":
		return r.readEvents(resp.Body, m)
	default:
		r.fail(m, fmt.Sprintf("the remote server answered with Content-Type %q, not JSON or an event stream", resp.Header.Get("Content-Type")))
	}
	return true
}

// deliver hands one message (or each of a batch) to the relay, on one
// line; answered says one was the response to m (or stood for it).
func (r *Remote) deliver(body []byte, m outgoing) (answered bool) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(body, &batch); err == nil {
			for _, b := range batch {
				answered = r.deliver(b, m) || answered
			}
			return answered
		}
	}
	if bytes.ContainsAny(body, "\r\n") {
		var buf bytes.Buffer
		if err := json.Compact(&buf, body); err != nil {
			r.fail(m, "the remote server's answer is not JSON")
			return true
		}
		body = buf.Bytes()
	}
	if m.Method == "initialize" || m.Method == "server/discover" {
		r.settleVersion(body)
	}
	h, ok := peekHead(body)
	if !ok {
		r.fail(m, "the remote server's answer is not a JSON-RPC message")
		return true
	}
	r.writeLine(body)
	return m.ID != nil && h.isResponse() && bytes.Equal(h.ID, m.ID)
}

// settleVersion keeps the protocol version an initialize or discover
// result settled.
func (r *Remote) settleVersion(body []byte) {
	var res struct {
		Result struct {
			ProtocolVersion   string   `json:"protocolVersion"`
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	if json.Unmarshal(body, &res) != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if v := res.Result.ProtocolVersion; v != "" {
		r.version = v
	}
}

// readEvents relays each event of an SSE stream as one message, until the
// stream ends or the session closes.
func (r *Remote) readEvents(body io.Reader, m outgoing) (answered bool) {
	err := readSSE(body, r.o.MaxMessageBytes, func(data []byte) { answered = r.deliver(data, m) || answered })
	if err != nil && r.ctx.Err() == nil {
		r.o.Log.Warn("gate: the remote server's event stream failed", "method", m.Method, "err", err)
	}
	return answered
}

// listen opens the server's own stream (2025-11-25) for notifications.
func (r *Remote) listen() {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, r.o.URL, nil)
		if err != nil {
			return
		}
		req.Header.Set("Accept", "text/event-stream")
		r.setHeaders(req, outgoing{})
		resp, err := r.o.HTTP.Do(req)
		if err != nil {
			return
		}
		defer func() { _ = resp.Body.Close() }()
		media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if resp.StatusCode != http.StatusOK || media != "text/event-stream" {
			return // 405: the server offers no stream of its own
		}
		r.readEvents(resp.Body, outgoing{})
	}()
}

func (r *Remote) sessionID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.session
}

// setHeaders sets the transport's headers, and nothing of the host's.
func (r *Remote) setHeaders(req *http.Request, m outgoing) {
	req.Header.Set("User-Agent", remoteUserAgent)
	if req.Method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	r.mu.Lock()
	session, version := r.session, r.version
	r.mu.Unlock()
	if session != "" {
		req.Header.Set(headerSession, session)
	}
	var fromMeta string
	if raw, ok := m.p.Meta[metaProtocolVersion]; ok {
		_ = json.Unmarshal(raw, &fromMeta)
	}
	if fromMeta != "" {
		version = fromMeta
	}
	if version != "" {
		req.Header.Set(headerProtocol, version)
	}
	if version >= statelessVersion && m.Method != "" && m.ID != nil {
		req.Header.Set(headerMethod, m.Method)
		switch m.Method {
		case "tools/call", "prompts/get":
			req.Header.Set(headerName, m.p.Name)
		case "resources/read":
			req.Header.Set(headerName, m.p.URI)
		}
	}
}

// fail answers a request the server could not answer with a JSON-RPC
// error, so that the relay settles it; other messages are only logged.
func (r *Remote) fail(m outgoing, why string) {
	if m.ID == nil || m.Method == "" {
		r.o.Log.Warn("gate: a message did not reach the remote server", "method", m.Method, "why", why)
		return
	}
	r.writeLine(errorLine(m.ID, codeUpstream, "mcpreg gate: "+why))
}

// writeLine gives the relay one line, unless the session closed.
func (r *Remote) writeLine(b []byte) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed && r.ctx.Err() != nil {
		return
	}
	_, _ = r.outW.Write(append(b, '\n'))
}

// readSSE calls event with the data of each event of an SSE stream (the
// lines of one event joined by newlines); an event over limit bytes ends
// the stream with an error.
func readSSE(body io.Reader, limit int, event func(data []byte)) error {
	br := bufio.NewReaderSize(body, 4<<10) // readLine joins longer lines
	var data []byte
	has := false
	for {
		line, tooLong, err := readLine(br, limit)
		if tooLong || len(data)+len(line) > limit {
			return fmt.Errorf("an event is larger than %d bytes", limit)
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			if has && err == nil {
				event(data)
				data, has = nil, false
			}
		case line[0] == ':':
			// a comment: keep-alive
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			if string(field) == "data" {
				if has {
					data = append(data, '\n')
				}
				data, has = append(data, value...), true
			}
			// event, id and retry are not used: every event is a message,
			// and the gate does not resume.
		}
		if err != nil {
			if has {
				event(data)
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// sseEvent encodes one message as an SSE event.
func sseEvent(msg []byte) []byte {
	var b strings.Builder
	b.WriteString("event: message\n")
	for _, l := range bytes.Split(msg, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(l)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return []byte(b.String())
}
