package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

const (
	// DefaultUserAgent is sent unless WithUserAgent says otherwise.
	DefaultUserAgent = "mcpreg-client"
	// DefaultMaxResponseBytes caps how much of a successful response is read.
	DefaultMaxResponseBytes int64 = 64 << 20
)

// Client calls one mcpreg service. It is safe for concurrent use.
type Client struct {
	base        string // scheme://host[/prefix], no trailing slash
	token       string
	httpClient  *http.Client
	userAgent   string
	maxResponse int64
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient makes the client send requests through hc (timeouts, TLS,
// proxies, redirect policy). The default client uses http.DefaultTransport
// and follows no redirects (a redirected POST would silently become a GET);
// deadlines come from the context of each call.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.httpClient = hc
		}
	}
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *Client) {
		if ua != "" {
			c.userAgent = ua
		}
	}
}

// WithMaxResponseBytes caps how much of a successful response body is read;
// a larger body fails the call with ErrResponseTooLarge.
func WithMaxResponseBytes(n int64) Option {
	return func(c *Client) {
		if n > 0 {
			c.maxResponse = n
		}
	}
}

// New returns a client for the service at baseURL (http or https, optionally
// with a path prefix, e.g. "https://tools.example/mcpreg") that authenticates
// with token (may be empty for a caller that expects 401s).
func New(baseURL, token string, opts ...Option) (*Client, error) {
	base, err := parseBase(baseURL)
	if err != nil {
		return nil, err
	}
	token = strings.TrimSpace(token)
	if strings.IndexFunc(token, isControlOrSpace) >= 0 {
		return nil, errors.New("token contains spaces or control characters")
	}
	c := &Client{base: base, token: token, httpClient: &http.Client{CheckRedirect: noRedirects},
		userAgent: DefaultUserAgent, maxResponse: DefaultMaxResponseBytes}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// BaseURL returns the service URL the client calls, without a trailing slash.
func (c *Client) BaseURL() string { return c.base }

func parseBase(raw string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "", errors.New("server URL is empty")
	}
	if !strings.Contains(raw, "://") {
		if strings.Contains(raw, "@") { // maybe credentials: never echoed
			return "", errors.New("server URL: no scheme, and it must not carry credentials: want an http:// or https:// URL")
		}
		return "", fmt.Errorf("server URL %q: no scheme: want an http:// or https:// URL, e.g. http://%s", raw, raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("server URL %q: %w", raw, err)
	}
	if err := checkBase(u); err != nil {
		return "", fmt.Errorf("server URL %q: %w", u.Redacted(), err)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

func checkBase(u *url.URL) error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("want an http:// or https:// URL")
	case u.Host == "" || u.Opaque != "":
		return errors.New("no host")
	case u.User != nil:
		return errors.New("must not carry credentials; pass the token separately")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return errors.New("must not have a query or fragment")
	}
	return nil
}

// noRedirects hands 3xx responses back to the caller, which reports them.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func isControlOrSpace(r rune) bool { return r <= ' ' || r == 0x7f }

var decodeOpts = protojson.UnmarshalOptions{DiscardUnknown: true}

// call sends one request and decodes a successful response into out.
// path is already escaped; in may be nil (no body).
func (c *Client) call(ctx context.Context, method, path string, query url.Values, in, out proto.Message) error {
	req, err := c.newRequest(ctx, method, path, query, in)
	if err != nil {
		return err
	}
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return unreachable(c.base, err) // *url.Error: method, URL and cause; never headers
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return newAPIError(resp)
	}
	return c.decode(resp, method, path, out)
}

func (c *Client) newRequest(ctx context.Context, method, path string, query url.Values, in proto.Message) (*http.Request, error) {
	var body io.Reader
	if in != nil {
		data, err := protojson.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("encoding %s request: %w", path, err)
		}
		body = bytes.NewReader(data)
	}
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

func (c *Client) decode(resp *http.Response, method, path string, out proto.Message) error {
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxResponse+1))
	if err != nil {
		return fmt.Errorf("%s %s: reading response: %w", method, path, err)
	}
	if int64(len(data)) > c.maxResponse {
		return fmt.Errorf("%s %s: %w: over %d bytes", method, path, ErrResponseTooLarge, c.maxResponse)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil // an empty body is an empty message
	}
	if err := decodeOpts.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decoding response (HTTP %d, Content-Type %q): %w",
			method, path, resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	return nil
}

// unreachable explains a refused connection: nothing listens at the
// server URL, which is most often a service not started or another
// address. The cause stays wrapped.
func unreachable(base string, err error) error {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("%w: is mcpregd serve running at %s? (--server or MCPREG_SERVER names the address)", err, base)
	}
	return err
}
