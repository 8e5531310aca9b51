package scan

import (
	"bytes"
	"io"
	"mime"
	"net/http"
)

// capture is the scan's http.RoundTripper: it shows the recorder every
// JSON-RPC message the SDK posts and every message in the responses (JSON
// bodies and text/event-stream events), byte for byte, while passing bodies
// on to the SDK unchanged, and enforces the byte limits as bodies are read.
type capture struct {
	base    http.RoundTripper
	headers map[string]string
	s       *session
}

func (c *capture) RoundTrip(req *http.Request) (*http.Response, error) {
	req, err := c.prepare(req)
	if err != nil {
		return nil, err
	}
	resp, err := c.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if err := c.tap(resp); err != nil {
		resp.Body.Close()
		return nil, err
	}
	return resp, nil
}

// prepare returns a copy of req with the target's headers, after noting the
// message it carries.
func (c *capture) prepare(req *http.Request) (*http.Request, error) {
	out := req.Clone(req.Context())
	for k, v := range c.headers {
		if out.Header.Get(k) == "" {
			out.Header.Set(k, v)
		}
	}
	if req.Body == nil || req.Body == http.NoBody {
		return out, nil
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	c.s.rec.sent(body)
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return out, nil
}

// tap wraps resp.Body according to its media type.
func (c *capture) tap(resp *http.Response) error {
	s := c.s
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch media {
	case "text/event-stream":
		resp.Body = newSSETap(resp.Body, s.lim, s.budget, s.rec.receive, s.trip)
	case "application/json":
		body, err := c.readJSON(resp.Body)
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
	default:
		resp.Body = &boundedBody{r: resp.Body, left: s.lim.MaxResponseBytes, s: s}
	}
	return nil
}

// readJSON reads a whole application/json body, which holds one message
// (or batch), within the limits, and records it.
func (c *capture) readJSON(body io.ReadCloser) ([]byte, error) {
	defer body.Close()
	lim := c.s.lim
	data, err := io.ReadAll(io.LimitReader(body, lim.MaxResponseBytes+1))
	if err != nil {
		return nil, err
	}
	if err := c.s.budget.spend(len(data)); err != nil {
		return nil, err
	}
	if int64(len(data)) > lim.MaxResponseBytes {
		return nil, c.s.trip.trip(limitError("MaxResponseBytes", lim.MaxResponseBytes, "a JSON response from the server is larger"))
	}
	if len(bytes.TrimSpace(data)) > 0 {
		forSDK, err := c.s.rec.receive(data)
		if err != nil {
			return nil, err
		}
		if forSDK != nil {
			return forSDK, nil
		}
	}
	return data, nil
}

// boundedBody passes on a body of another media type (an error page, say)
// within MaxResponseBytes and the scan's budget.
type boundedBody struct {
	r    io.ReadCloser
	left int64
	s    *session
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if b.left -= int64(n); b.left < 0 {
		return 0, b.s.trip.trip(limitError("MaxResponseBytes", b.s.lim.MaxResponseBytes, "a response body from the server is larger"))
	}
	if serr := b.s.budget.spend(n); serr != nil {
		return 0, serr
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.r.Close() }
