package hostclient

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpreg/mcpreg/client"
	"github.com/mcpreg/mcpreg/discovery"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// userAgent identifies hostclient to the registry.
const userAgent = "mcpreg-hostclient"

// Client talks to one registry on behalf of a host. Its fields are read on
// every call; set them before use and do not change them while calls run.
type Client struct {
	// BaseURL is the registry, e.g. "https://mcpreg.example".
	BaseURL string
	// Token is a host token (role host). Reviewers and admins may resolve
	// too, but only hosts and admins post connect-time checks.
	Token string
	// HTTP sends the requests; nil means one that follows no redirects.
	HTTP *http.Client
	// Keys are the trusted discovery keys by key id. Resolve fails without
	// any. Pin them out of band (FetchKeys is a convenience, see there).
	Keys map[string]ed25519.PublicKey
	// State remembers the last accepted sequence per registry; Resolve
	// fails without one.
	State SequenceStore
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Cache, when set, keeps every document Resolve verified, as the
	// registry signed it, for ResolveCached to fall back on while the
	// registry cannot be reached (FileCache across restarts).
	Cache DocumentCache
	// OnCacheError is told when a verified document could not be stored
	// in Cache; nil drops the error. Resolve succeeds regardless: the
	// cache only matters while the registry is unreachable.
	OnCacheError func(error)
}

// Query narrows a resolve. The zero Query asks for every server the
// token may use, latest version each.
type Query struct {
	Name      string
	Version   string // needs Name; "" or "latest" means the latest
	Namespace string
	Owner     string
	// PageSize is the entries per page, at most 1000; 0 means the
	// registry's default. Resolve fetches every page whatever the size.
	PageSize int
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// rollbackRetries are the pauses before asking again for an answer older
// than one accepted before.
var rollbackRetries = []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}

// api returns a REST client for the registry.
func (c *Client) api() (*client.Client, error) {
	return client.New(c.BaseURL, c.Token, client.WithHTTPClient(c.HTTP), client.WithUserAgent(userAgent))
}

// Resolve fetches every page of the discovery document for q, verifies
// each (signature, freshness, query, sequence; see the package comment),
// merges them into one Document and records its sequence in State. With a
// Cache, it then stores the pages as the registry sent them; failing to
// store them does not fail the resolve (see OnCacheError).
func (c *Client) Resolve(ctx context.Context, q Query) (*discovery.Document, error) {
	if len(c.Keys) == 0 {
		return nil, fmt.Errorf("%w: configure the registry's public key (Client.Keys)", ErrNoKeys)
	}
	if c.State == nil {
		return nil, fmt.Errorf("%w: set Client.State (MemoryStore or FileStore)", ErrNoState)
	}
	api, err := c.api()
	if err != nil {
		return nil, err
	}
	last, err := c.State.Last(api.BaseURL())
	if err != nil {
		return nil, fmt.Errorf("reading the last accepted sequence: %w", err)
	}
	rec := &pageRecorder{src: registryPages(api, q)}
	doc, err := c.resolveNotOlder(ctx, rec.next, q, last, api.BaseURL())
	if err != nil {
		return nil, err
	}
	if doc.Sequence > last {
		if err := c.State.Save(api.BaseURL(), doc.Sequence); err != nil {
			return nil, fmt.Errorf("saving the accepted sequence: %w", err)
		}
	}
	c.storeCached(api.BaseURL(), q, rec.pages)
	return doc, nil
}

// resolveNotOlder reads and verifies q's document until its sequence is
// not below last, asking again a few times before calling it a rollback.
func (c *Client) resolveNotOlder(ctx context.Context, src pageSource, q Query, last int64, registry string) (*discovery.Document, error) {
	for attempt := 0; ; attempt++ {
		doc, err := resolveAll(ctx, src, q, c.openVerified)
		if err != nil || doc.Sequence >= last {
			return doc, err
		}
		// Behind a load balancer, a replica may still be catching up
		// with a change another one made (well under a second): ask
		// again a few times before calling it a rollback.
		rollback := fmt.Errorf("%w: sequence %d, but sequence %d from %s was accepted before (a replayed or rolled-back answer)",
			ErrRollback, doc.Sequence, last, registry)
		if attempt == len(rollbackRetries) {
			return nil, rollback
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w; stopped waiting for a newer one: %w", rollback, ctx.Err())
		case <-time.After(rollbackRetries[attempt]):
		}
	}
}

// ResolveUnverified fetches and merges every page like Resolve but checks
// neither signatures, freshness nor the sequence. It is for showing what a
// registry says (mcpreg discovery get without --verify); never decide what
// to connect to with it.
func (c *Client) ResolveUnverified(ctx context.Context, q Query) (*discovery.Document, error) {
	api, err := c.api()
	if err != nil {
		return nil, err
	}
	return resolveAll(ctx, registryPages(api, q), q, openUnverified)
}

// Check posts what the host observed on a server (the raw tools/list
// result, all pages merged, and optionally the raw initialize result) and
// returns the registry's verdict. version "" means the latest version the
// host may use.
func (c *Client) Check(ctx context.Context, name, version string, toolsFile, initResult []byte) (*mcpregv1.CheckConnectionResponse, error) {
	api, err := c.api()
	if err != nil {
		return nil, err
	}
	return api.CheckConnection(ctx, &mcpregv1.CheckConnectionRequest{Name: name, Version: version,
		Tools: string(toolsFile), InitializeResult: string(initResult)})
}
