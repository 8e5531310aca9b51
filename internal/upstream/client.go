// Package upstream reads an upstream registry's official /v0.1 list API
// for a sync pass. Everything an upstream answers is hostile input: the
// client dials through the scanner's dial guard (restricted addresses only
// where allow-listed), follows redirects only within the upstream's
// origin, caps each page's bytes and time, and checks every entry's shape
// before handing it on. What a page says is never trusted beyond its
// shape: the registry validates each server.json as a submission.
package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpreg/mcpreg/scan"
)

// OfficialMetaKey is the official registry's member of a server
// response's _meta.
const OfficialMetaKey = "io.modelcontextprotocol.registry/official"

// Statuses an upstream gives a version.
const (
	StatusActive     = "active"
	StatusDeprecated = "deprecated"
	StatusDeleted    = "deleted"
)

// Limits cap what one pass reads.
type Limits struct {
	// PageSize is the limit asked for (the official maximum is 100).
	PageSize int
	// MaxPages caps the pages of one pass; an upstream that pages on
	// stops the pass there (it resumes from the last cursor).
	MaxPages int
	// MaxPageBytes caps one page's body.
	MaxPageBytes int64
	// MaxPassBytes caps the bytes of one pass.
	MaxPassBytes int64
	// RequestTimeout bounds one page request; PassTimeout a whole pass.
	RequestTimeout time.Duration
	PassTimeout    time.Duration
	// Skew is taken off a pass's start for the next pass's updated_since,
	// so versions the upstream stamped with a clock behind ours are seen.
	Skew time.Duration
}

// DefaultLimits are enough for the public registry (~100,000 servers in
// 1,000 pages) in one pass.
func DefaultLimits() Limits {
	return Limits{PageSize: 100, MaxPages: 5000, MaxPageBytes: 16 << 20, MaxPassBytes: 4 << 30,
		RequestTimeout: time.Minute, PassTimeout: 2 * time.Hour, Skew: 5 * time.Minute}
}

// ErrUpstream is matched by every error about what an upstream answered
// (or failed to).
var ErrUpstream = errors.New("upstream")

// Client reads one upstream.
type Client struct {
	base  *url.URL
	token string
	lim   Limits
	http  *http.Client
}

// maxRedirects bounds the same-origin redirects of one request.
const maxRedirects = 5

// CheckURL checks an upstream's base URL: absolute http or https, no
// user information, query or fragment.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return nil, fmt.Errorf("url %q: %w", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("url %q: want an http or https URL", raw)
	case u.Host == "":
		return nil, fmt.Errorf("url %q: no host", raw)
	case u.User != nil:
		return nil, fmt.Errorf("url %q: credentials belong in the token, not the URL", u.Redacted())
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("url %q: no query or fragment; /v0.1/servers is read below the URL", raw)
	case len(raw) > 2048:
		return nil, fmt.Errorf("url: longer than 2048 bytes")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// New returns a client of the upstream at rawURL. allow lists the
// restricted addresses it may dial; token, if any, is sent as a bearer
// token to the upstream's origin only.
func New(rawURL, token string, allow scan.AllowList, lim Limits) (*Client, error) {
	u, err := CheckURL(rawURL)
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(token, "\r\n\x00") {
		return nil, errors.New("token: line breaks and NUL are not allowed")
	}
	t := &http.Transport{
		Proxy:                  nil, // a proxy would dial instead of the guard
		DialContext:            allow.Dialer(),
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  lim.RequestTimeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConnsPerHost:    2,
	}
	c := &Client{base: u, token: token, lim: lim}
	c.http = &http.Client{Transport: t, CheckRedirect: c.checkRedirect}
	return c, nil
}

// Close releases idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if req.URL.Scheme != c.base.Scheme || req.URL.Host != c.base.Host {
		return fmt.Errorf("%w: redirect from %s to another origin %s://%s refused", ErrUpstream, c.base.Redacted(), req.URL.Scheme, req.URL.Host)
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrUpstream, maxRedirects)
	}
	return nil
}

// Entry is one server version of a page.
type Entry struct {
	// Server is the server.json as received.
	Server json.RawMessage
	// Meta is the response's _meta as received (provenance only).
	Meta          json.RawMessage
	Name, Version string
	// Status is active, deprecated or deleted (active when not given).
	Status        string
	StatusMessage string
	PublishedAt   time.Time
	UpdatedAt     time.Time
	// Problem says why the entry cannot be used (a malformed shape); the
	// other fields may be partly empty.
	Problem string
}

// Page is one answer of /v0.1/servers.
type Page struct {
	Entries    []Entry
	NextCursor string
	Bytes      int64
}

// maxCursor caps a cursor an upstream hands out.
const maxCursor = 4096

// List reads one page: the servers updated after since (all when zero),
// from cursor ("" for the first page).
func (c *Client) List(ctx context.Context, since time.Time, cursor string) (*Page, error) {
	q := url.Values{}
	q.Set("limit", strconv.Itoa(c.lim.PageSize))
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if !since.IsZero() {
		q.Set("updated_since", since.UTC().Format(time.RFC3339Nano))
	}
	u := *c.base
	u.Path += "/v0.1/servers"
	u.RawQuery = q.Encode()
	body, err := c.get(ctx, u.String())
	if err != nil {
		return nil, err
	}
	p, err := parsePage(body)
	if err != nil {
		return nil, err
	}
	p.Bytes = int64(len(body))
	return p, nil
}

func (c *Client) get(ctx context.Context, target string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.lim.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "mcpreg-upstream-sync")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if timedOut(err) {
			return nil, fmt.Errorf("%w: GET %s: no answer within %s (timeout)", ErrUpstream, redact(target), c.lim.RequestTimeout)
		}
		return nil, fmt.Errorf("%w: GET %s: %w", ErrUpstream, redact(target), unwrapURLError(err))
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.lim.MaxPageBytes+1))
	if err != nil {
		if timedOut(err) {
			return nil, fmt.Errorf("%w: GET %s: the answer did not end within %s (timeout)", ErrUpstream, redact(target), c.lim.RequestTimeout)
		}
		return nil, fmt.Errorf("%w: GET %s: reading the answer: %w", ErrUpstream, redact(target), unwrapURLError(err))
	}
	if int64(len(body)) > c.lim.MaxPageBytes {
		return nil, fmt.Errorf("%w: GET %s: answer larger than %d bytes", ErrUpstream, redact(target), c.lim.MaxPageBytes)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: GET %s answered %d: %s", ErrUpstream, redact(target), resp.StatusCode, excerpt(body))
	}
	return body, nil
}

// timedOut reports whether err is a request's deadline passing.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// unwrapURLError drops the url.Error wrapper, whose text repeats the URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// redact is target without its query (cursors can be long).
func redact(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "(the upstream)"
	}
	u.RawQuery = ""
	return u.Redacted()
}

// excerpt is the start of an answer, printable.
func excerpt(b []byte) string {
	const n = 200
	s := string(b)
	if len(s) > n {
		s = Truncate(s, n) + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
}

// wirePage is the official ServerListResponse, members kept raw so that
// one malformed entry does not void the page.
type wirePage struct {
	Servers  *[]json.RawMessage `json:"servers"`
	Metadata struct {
		NextCursor json.RawMessage `json:"nextCursor"`
	} `json:"metadata"`
}

type wireEntry struct {
	Server json.RawMessage `json:"server"`
	Meta   json.RawMessage `json:"_meta"`
}

type wireServer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type wireOfficial struct {
	Status        string    `json:"status"`
	StatusMessage *string   `json:"statusMessage"`
	PublishedAt   time.Time `json:"publishedAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

func parsePage(body []byte) (*Page, error) {
	var w wirePage
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("%w: the answer is not a server list: %w", ErrUpstream, err)
	}
	if w.Servers == nil {
		return nil, fmt.Errorf("%w: the answer is not a server list: no servers array", ErrUpstream)
	}
	p := &Page{}
	if len(w.Metadata.NextCursor) > 0 && string(w.Metadata.NextCursor) != "null" {
		if err := json.Unmarshal(w.Metadata.NextCursor, &p.NextCursor); err != nil {
			return nil, fmt.Errorf("%w: metadata.nextCursor is not a string", ErrUpstream)
		}
		if len(p.NextCursor) > maxCursor {
			return nil, fmt.Errorf("%w: metadata.nextCursor longer than %d bytes", ErrUpstream, maxCursor)
		}
	}
	for i, raw := range *w.Servers {
		p.Entries = append(p.Entries, parseEntry(i, raw))
	}
	return p, nil
}

// parseEntry reads one entry's shape; a malformed one keeps its Problem.
func parseEntry(i int, raw json.RawMessage) Entry {
	var we wireEntry
	if err := json.Unmarshal(raw, &we); err != nil {
		return Entry{Problem: fmt.Sprintf("servers[%d] is not a server response: %v", i, err)}
	}
	e := Entry{Server: we.Server, Meta: we.Meta, Status: StatusActive}
	var ws wireServer
	if len(bytes.TrimSpace(we.Server)) == 0 || we.Server[0] != '{' {
		e.Problem = fmt.Sprintf("servers[%d].server is not an object", i)
		return e
	}
	if err := json.Unmarshal(we.Server, &ws); err != nil {
		e.Problem = fmt.Sprintf("servers[%d].server: %v", i, err)
		return e
	}
	e.Name, e.Version = ws.Name, ws.Version
	if e.Name == "" || e.Version == "" || len(e.Name) > 200 || len(e.Version) > 255 {
		e.Problem = fmt.Sprintf("servers[%d].server: name and version are required (at most 200 and 255 bytes)", i)
		return e
	}
	if len(we.Meta) > 0 && string(we.Meta) != "null" {
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(we.Meta, &meta); err != nil {
			e.Problem = fmt.Sprintf("servers[%d]._meta is not an object", i)
			return e
		}
		if off, ok := meta[OfficialMetaKey]; ok {
			var o wireOfficial
			if err := json.Unmarshal(off, &o); err != nil {
				e.Problem = fmt.Sprintf("servers[%d]._meta[%q]: %v", i, OfficialMetaKey, err)
				return e
			}
			switch o.Status {
			case "", StatusActive, StatusDeprecated, StatusDeleted:
			default:
				e.Problem = fmt.Sprintf("servers[%d]: status %q is not active, deprecated or deleted", i, o.Status)
				return e
			}
			if o.Status != "" {
				e.Status = o.Status
			}
			if o.StatusMessage != nil {
				e.StatusMessage = Truncate(*o.StatusMessage, 1000)
			}
			e.PublishedAt, e.UpdatedAt = o.PublishedAt, o.UpdatedAt
		}
	}
	return e
}

// Truncate cuts s to at most n bytes on a rune boundary.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) && s != "" {
		s = s[:len(s)-1]
	}
	return s
}
