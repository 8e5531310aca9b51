package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The protocol versions the scanner speaks. Under statelessVersion a
// session opens with server/discover (the SDK falls back to initialize for
// a server that does not speak it); under legacyVersion with initialize.
const (
	statelessVersion = "2026-07-28"
	legacyVersion    = "2025-11-25"
)

// clientInfo is how the scanner introduces itself.
var clientInfo = &mcp.Implementation{Name: "mcpreg-scan", Version: "1"}

// session is the state of one scan shared by the transport taps (which see
// raw bytes) and the scanner (which drives the SDK client).
type session struct {
	lim    Limits
	allow  AllowList
	trip   *tripwire
	budget *budget
	rec    *recorder
}

func newSession(lim Limits, allow AllowList) *session {
	trip := &tripwire{}
	return &session{
		lim:    lim,
		allow:  allow,
		trip:   trip,
		budget: &budget{max: lim.MaxTotalBytes, trip: trip},
		rec:    newRecorder(lim, trip),
	}
}

// link is an opened target.
type link struct {
	transport mcp.Transport
	close     func()                // ends the connection; stops a stdio server
	stderr    func() (string, bool) // what a stdio server wrote to stderr
	exit      func() error          // after close: a sandbox limit the server hit, or nil
}

// newClient returns a client with the fixed capability profile: no roots,
// sampling or elicitation, so every server sees the same client.
func newClient() *mcp.Client {
	return mcp.NewClient(clientInfo, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
}

// errNoDiscover: the server did not answer server/discover in time (a
// server that predates 2026-07-28 may ignore a method it does not know).
var errNoDiscover = errors.New("no answer to server/discover")

// discoverWait is how long the first reading waits for server/discover:
// a tenth of the deadline, at most 10s (a stdio server's start counts).
func (s *session) discoverWait() time.Duration {
	return min(s.lim.Deadline/10, 10*time.Second)
}

// run reads the server behind l into rd, asking for version: the opening
// result, Lists listings of the tools, then the prompts and resources the
// server advertises. Asked for 2026-07-28, a server that does not answer
// server/discover within discoverWait is errNoDiscover.
func (s *session) run(ctx context.Context, l *link, version string, rd *Reading) error {
	defer l.close()
	cs, err := s.connect(ctx, l, version)
	if errors.Is(err, errNoDiscover) {
		return err
	}
	if err != nil {
		return s.failed(ctx, s.opener(version), err)
	}
	defer func() { l.close(); _ = cs.Close() }()
	if err := s.opened(ctx, cs, rd); err != nil {
		return err
	}
	for i := range s.lim.Lists {
		lst, err := s.listing(ctx, cs, i+1, rd)
		if err != nil {
			return err
		}
		rd.Listings = append(rd.Listings, lst)
	}
	if err := s.catalogs(ctx, cs, rd); err != nil {
		return err
	}
	rd.ServerInfos = distinctInfos(rd.ServerInfo, s.rec.seenServerInfos())
	return nil
}

// distinctInfos lists the opening serverInfo and those seen after, once
// each (compared as received).
func distinctInfos(opening []byte, seen []string) []json.RawMessage {
	var out []json.RawMessage
	add := func(b []byte) {
		if len(b) > 0 && !slices.ContainsFunc(out, func(x json.RawMessage) bool { return bytes.Equal(x, b) }) {
			out = append(out, json.RawMessage(bytes.Clone(b)))
		}
	}
	add(opening)
	for _, s := range seen {
		add([]byte(s))
	}
	return out
}

// connect opens the client session. Asked for 2026-07-28, it gives up
// after discoverWait without an answer (errNoDiscover) and leaves the
// abandoned handshake to end with ctx: the SDK's own clean-up of a failed
// handshake may wait on the server, and the scan must not.
func (s *session) connect(ctx context.Context, l *link, version string) (*mcp.ClientSession, error) {
	type connected struct {
		cs  *mcp.ClientSession
		err error
	}
	done := make(chan connected, 1)
	go func() {
		cs, err := newClient().Connect(ctx, l.transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
		done <- connected{cs, err}
	}()
	var wait <-chan time.Time
	if version >= statelessVersion {
		timer := time.NewTimer(s.discoverWait())
		defer timer.Stop()
		wait = timer.C
	}
	select {
	case c := <-done:
		return c.cs, c.err
	case <-wait:
		go func() {
			if c := <-done; c.cs != nil {
				_ = c.cs.Close()
			}
		}()
		return nil, fmt.Errorf("%w within %s", errNoDiscover, s.discoverWait())
	}
}

// opening is the call that opens a session asked for version.
func opening(version string) string {
	if version >= statelessVersion {
		return methodDiscover
	}
	return methodInitialize
}

// opener is the call whose answer explains a session that failed to
// open: the initialize the SDK fell back to when it was answered (a
// server that does not speak 2026-07-28), else the opening call.
func (s *session) opener(version string) string {
	if s.rec.has(methodInitialize) {
		return methodInitialize
	}
	return opening(version)
}

// opened reads the raw result that opened the session into rd: a
// server/discover result when the session speaks 2026-07-28, else an
// initialize result.
func (s *session) opened(ctx context.Context, cs *mcp.ClientSession, rd *Reading) error {
	negotiated := cs.InitializeResult().ProtocolVersion
	if negotiated >= statelessVersion {
		raw, err := s.answer(ctx, methodDiscover)
		if err != nil {
			return err
		}
		return parseDiscover(raw, negotiated, rd)
	}
	raw, err := s.answer(ctx, methodInitialize)
	if err != nil {
		return err
	}
	return parseInitialize(raw, rd)
}

// answer returns the raw result of the call to method that just succeeded
// in the SDK, unless something below the SDK tripped the scan.
func (s *session) answer(ctx context.Context, method string) ([]byte, error) {
	if err := s.trip.Err(); err != nil {
		return nil, err
	}
	resp, ok := s.rec.next(method)
	if !ok || resp.Result == nil {
		return nil, s.failed(ctx, method, errors.New("no raw result was captured for the call"))
	}
	return resp.Result, nil
}

// failed explains why a call to method failed with err: the first error
// seen below the SDK, the deadline, or else a protocol error.
func (s *session) failed(ctx context.Context, method string, err error) error {
	if tripped := s.trip.Err(); tripped != nil {
		return tripped
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: during %s (deadline %s)", ErrTimeout, method, s.lim.Deadline)
	case ctx.Err() != nil:
		return fmt.Errorf("scan: during %s: %w", method, ctx.Err())
	}
	if resp, ok := s.rec.next(method); ok && resp.Result != nil {
		if perr := s.strictly(method, resp.Result); perr != nil {
			return perr // the strict reading says more than the SDK's decoder
		}
	}
	return fmt.Errorf("%w: %s: %w", ErrProtocol, method, err)
}

// strictly reads a result the SDK rejected with the scan's own rules.
func (s *session) strictly(method string, result []byte) error {
	switch method {
	case methodInitialize:
		return parseInitialize(result, &Reading{})
	case methodDiscover:
		return parseDiscover(result, statelessVersion, &Reading{})
	case methodGetPrompt:
		_, err := parseGetPrompt(result)
		return err
	}
	if c, ok := catalogByMethod(method); ok {
		_, err := parseCatalogPage(result, c)
		return err
	}
	_, err := parsePage(result, s.lim)
	return err
}
