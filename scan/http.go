package scan

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPTarget is a server reached over MCP's Streamable HTTP transport.
type HTTPTarget struct {
	// URL is the MCP endpoint, http or https.
	URL string
	// Headers are added to every request (for example Authorization),
	// except where the SDK sets the header itself.
	Headers map[string]string
}

// maxRedirects bounds the same-origin redirects a scan follows.
const maxRedirects = 5

func (t HTTPTarget) open(_ context.Context, s *session) (*link, error) {
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("scan: URL %q: want an absolute http or https URL", t.URL)
	}
	base := &http.Transport{
		Proxy:                  nil, // a proxy would dial instead of the guard
		DialContext:            (&dialGuard{allow: s.allow, trip: s.trip}).DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	client := &http.Client{
		Transport:     &capture{base: base, headers: t.Headers, s: s},
		CheckRedirect: s.checkRedirect,
	}
	transport := &mcp.StreamableClientTransport{
		Endpoint:             t.URL,
		HTTPClient:           client,
		MaxRetries:           -1,   // a stream that breaks fails the scan
		DisableStandaloneSSE: true, // only answers to our calls are read
		MaxEventSize:         sdkFrameLimit(s.lim),
	}
	return &link{transport: transport, close: base.CloseIdleConnections, stderr: noStderr}, nil
}

// checkRedirect follows redirects only within the origin of the first
// request; the dial guard checks every connection anyway.
func (s *session) checkRedirect(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	if req.URL.Scheme != from.Scheme || req.URL.Host != from.Host {
		return s.trip.trip(fmt.Errorf("%w: redirect from %s to another origin %s://%s", ErrDenied, from.Redacted(), req.URL.Scheme, req.URL.Host))
	}
	if len(via) >= maxRedirects {
		return s.trip.trip(fmt.Errorf("%w: more than %d redirects from %s", ErrProtocol, maxRedirects, from.Redacted()))
	}
	return nil
}

// sdkFrameLimit is the SDK's own cap on one message, set above
// MaxResponseBytes so that the scan's taps, which name the limit, stop a
// large message first.
func sdkFrameLimit(lim Limits) int {
	return int(2*lim.MaxResponseBytes) + 64<<10
}

func noStderr() (string, bool) { return "", false }
