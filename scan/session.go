package scan

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// protocolVersion is the version the scanner asks for. Setting it skips the
// SDK's server/discover probe (2026-07-28), whose list cache could answer a
// second tools/list without asking the server.
const protocolVersion = "2025-11-25"

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

// run reads the server behind l into snap.
func (s *session) run(ctx context.Context, l *link, snap *Snapshot) error {
	defer l.close()
	cs, err := newClient().Connect(ctx, l.transport, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return s.failed(ctx, methodInitialize, err)
	}
	defer func() { l.close(); _ = cs.Close() }()
	if err := s.initialized(ctx, snap); err != nil {
		return err
	}
	for i := range s.lim.Lists {
		lst, err := s.listing(ctx, cs, i+1, snap)
		if err != nil {
			return err
		}
		snap.Listings = append(snap.Listings, lst)
	}
	s.summarize(snap)
	return nil
}

// initialized reads the raw initialize result into snap.
func (s *session) initialized(ctx context.Context, snap *Snapshot) error {
	raw, err := s.answer(ctx, methodInitialize)
	if err != nil {
		return err
	}
	return parseInitialize(raw, snap)
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
	if method == methodInitialize {
		return parseInitialize(result, &Snapshot{})
	}
	_, err := parsePage(result, s.lim)
	return err
}
