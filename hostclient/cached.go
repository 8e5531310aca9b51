package hostclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/mcpreg/mcpreg/client"
	"github.com/mcpreg/mcpreg/discovery"
)

// Resolution is a verified discovery document and where it came from.
type Resolution struct {
	Document *discovery.Document
	// ReadAt is when Document was read from the registry: just now, or
	// when it was cached.
	ReadAt time.Time
	// Cached says the registry could not be reached and Document is the
	// cached copy, verified again.
	Cached bool
	// Unreachable is the registry's error, when Cached.
	Unreachable error
	// Source is where the cached copy was read (a file), when Cached.
	Source string
}

// errNotCached: nothing cached for the query.
var errNotCached = errors.New("no discovery document for this query is cached")

// ResolveCached is Resolve, falling back on the document Cache holds for
// the same registry, token and query when the registry cannot be reached:
// the connection is refused or reset, it times out, the name does not
// resolve, or a proxy answers 502, 503 or 504. Any other failure (401,
// 403, 404, a document that does not verify, a rollback) is returned as
// it is. The cached document is verified again exactly like a fresh one:
// every page's signature with Keys, freshness at Now, the query it
// answers, and a sequence not below the last one in State. When it cannot
// stand in (none, expired, tampered, rolled back), the error wraps
// ErrUnreachable, the registry's error and the cache's.
func (c *Client) ResolveCached(ctx context.Context, q Query) (*Resolution, error) {
	if c.Cache == nil {
		return nil, fmt.Errorf("%w: set Client.Cache (a FileCache)", ErrNoCache)
	}
	doc, err := c.Resolve(ctx, q)
	if err == nil {
		return &Resolution{Document: doc, ReadAt: c.now().UTC()}, nil
	}
	if !unreachable(err) {
		return nil, err
	}
	api, apiErr := c.api()
	if apiErr != nil { // Resolve got past this: not reached
		return nil, err
	}
	cached, res, cacheErr := c.fromCache(api.BaseURL(), q)
	if cacheErr != nil {
		return nil, &fallbackError{registry: err, cache: cacheErr, doc: cached}
	}
	res.Unreachable = err
	return res, nil
}

// fromCache loads and verifies q's cached document; cached is what was
// loaded, for messages.
func (c *Client) fromCache(registry string, q Query) (cached *CachedDocument, res *Resolution, err error) {
	if cached, err = c.Cache.Load(c.cacheKey(registry, q)); err != nil {
		return nil, nil, err
	}
	if cached == nil {
		return nil, nil, errNotCached
	}
	doc, err := c.verifyCached(cached, q)
	if err != nil {
		return cached, nil, err
	}
	last, err := c.State.Last(registry)
	if err != nil {
		return cached, nil, fmt.Errorf("reading the last accepted sequence: %w", err)
	}
	if doc.Sequence < last {
		return cached, nil, fmt.Errorf("%w: the cached document in %s has sequence %d, but sequence %d from %s was accepted since",
			ErrRollback, cached.Source, doc.Sequence, last, registry)
	}
	if doc.Sequence > last {
		if err := c.State.Save(registry, doc.Sequence); err != nil {
			return cached, nil, fmt.Errorf("saving the accepted sequence: %w", err)
		}
	}
	return cached, &Resolution{Document: doc, ReadAt: cached.ReadAt, Cached: true, Source: cached.Source}, nil
}

// verifyCached reads the cached pages as Resolve reads the registry's:
// each verified, answering q, consistent, merged.
func (c *Client) verifyCached(cached *CachedDocument, q Query) (*discovery.Document, error) {
	next := 0
	src := func(context.Context, string) ([]byte, error) {
		if next == len(cached.Pages) {
			return nil, fmt.Errorf("%w: the document goes on after the %d pages cached", ErrDocument, len(cached.Pages))
		}
		next++
		return cached.Pages[next-1], nil
	}
	doc, err := fetchPages(context.Background(), src, q, c.openVerified)
	switch {
	case errors.Is(err, errMoved):
		err = fmt.Errorf("%w: %w", ErrDocument, err)
	case err == nil && next < len(cached.Pages):
		err = fmt.Errorf("%w: %d pages cached, but the document ends after %d", ErrDocument, len(cached.Pages), next)
	}
	if err != nil {
		return nil, fmt.Errorf("the cached document in %s: %w", cached.Source, err)
	}
	return doc, nil
}

// unreachable tells a registry that could not be reached from one that
// answered: only the former may be stood in for by the cache.
func unreachable(err error) bool {
	var apiErr *client.APIError
	var dnsErr *net.DNSError
	var netErr net.Error
	var urlErr *url.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, ErrRollback), errors.Is(err, ErrSignature),
		errors.Is(err, ErrDocument), errors.Is(err, ErrExpired), errors.Is(err, ErrNotYetValid):
		return false
	case errors.As(err, &apiErr):
		switch apiErr.HTTPStatus {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	case errors.As(err, &dnsErr), errors.As(err, &netErr) && netErr.Timeout():
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	}
	// The connection closed before an answer.
	return errors.As(err, &urlErr) && errors.Is(urlErr.Err, io.EOF)
}

// fallbackError: the registry could not be reached and the cache could
// not stand in.
type fallbackError struct {
	registry, cache error
	doc             *CachedDocument // what was loaded; nil when nothing
}

func (e *fallbackError) Error() string {
	var expired *expiredError
	switch {
	case errors.Is(e.cache, errNotCached):
		return fmt.Sprintf("%s (%v), and %v", ErrUnreachable, e.registry, e.cache)
	case errors.As(e.cache, &expired) && e.doc != nil:
		return fmt.Sprintf("%s (%v), and the cached document expired at %s (read at %s; %s; now is %s)", ErrUnreachable,
			e.registry, stamp(expired.expiresAt), stamp(e.doc.ReadAt), e.doc.Source, stamp(expired.now))
	}
	return fmt.Sprintf("%s (%v), and the cached document cannot stand in: %v", ErrUnreachable, e.registry, e.cache)
}

func (e *fallbackError) Unwrap() []error { return []error{ErrUnreachable, e.registry, e.cache} }
