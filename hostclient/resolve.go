package hostclient

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpreg/mcpreg/client"
	"github.com/mcpreg/mcpreg/discovery"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

const (
	// maxPages bounds one resolve: 1000 pages of up to 1000 entries.
	maxPages = 1000
	// resolveAttempts is how often a resolve restarts from the first page
	// when the registry changed between pages.
	resolveAttempts = 3
)

// errMoved says a later page carries another sequence than the first:
// the registry changed while the pages were read.
var errMoved = errors.New("the registry changed between pages")

// opener turns one page's envelope into its document, checking what the
// caller wants checked.
type opener func(envelope []byte) (*discovery.Document, error)

// pageSource returns the envelope of q's page at token: the registry's
// answer, or a cached one.
type pageSource func(ctx context.Context, token string) ([]byte, error)

// registryPages asks the registry for q's pages.
func registryPages(api *client.Client, q Query) pageSource {
	return func(ctx context.Context, token string) ([]byte, error) {
		return api.ResolveDiscovery(ctx, &mcpregv1.ResolveServersRequest{Name: q.Name, Version: q.Version,
			Namespace: q.Namespace, Owner: q.Owner, PageSize: int32(q.PageSize), PageToken: token})
	}
}

// pageRecorder keeps the envelopes of the last complete read of a source,
// byte for byte, for the cache.
type pageRecorder struct {
	src   pageSource
	pages [][]byte
}

// next implements pageSource; a read of the first page starts over.
func (r *pageRecorder) next(ctx context.Context, token string) ([]byte, error) {
	if token == "" {
		r.pages = nil
	}
	env, err := r.src(ctx, token)
	if err == nil {
		r.pages = append(r.pages, env)
	}
	return env, err
}

// resolveAll reads every page of q, restarting when the registry changed
// between pages, and merges them.
func resolveAll(ctx context.Context, src pageSource, q Query, open opener) (*discovery.Document, error) {
	for attempt := 1; ; attempt++ {
		doc, err := fetchPages(ctx, src, q, open)
		if !errors.Is(err, errMoved) {
			return doc, err
		}
		if attempt == resolveAttempts {
			return nil, fmt.Errorf("%w: the registry changed between pages %d times in a row (last: %w)", ErrDocument, attempt, err)
		}
	}
}

// fetchPages reads the pages of one consistent answer.
func fetchPages(ctx context.Context, src pageSource, q Query, open opener) (*discovery.Document, error) {
	var merged *discovery.Document
	token := ""
	for page := 1; ; page++ {
		doc, err := fetchPage(ctx, src, q, token, open)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", page, err)
		}
		if merged == nil {
			merged = doc
		} else if err := mergePage(merged, doc); err != nil {
			return nil, fmt.Errorf("page %d: %w", page, err)
		}
		if doc.NextPageToken == "" {
			return finish(merged)
		}
		if page == maxPages {
			return nil, fmt.Errorf("%w: more than %d pages", ErrDocument, maxPages)
		}
		token = doc.NextPageToken
	}
}

// fetchPage reads and opens the page at token and checks that it answers
// the query that was asked.
func fetchPage(ctx context.Context, src pageSource, q Query, token string, open opener) (*discovery.Document, error) {
	env, err := src(ctx, token)
	if err != nil {
		return nil, err
	}
	doc, err := open(env)
	if err != nil {
		return nil, err
	}
	return doc, checkAnswers(doc, q, token)
}

// checkAnswers refuses a document that answers another query: a signed
// answer for other filters, or another page, must not pass for this one.
func checkAnswers(doc *discovery.Document, q Query, token string) error {
	want := discovery.Query{Name: q.Name, Version: q.Version, Namespace: q.Namespace, Owner: q.Owner,
		PageSize: doc.Query.PageSize, PageToken: token}
	if want.Version == "latest" {
		want.Version = ""
	}
	if q.PageSize != 0 {
		want.PageSize = q.PageSize
	}
	if doc.Query != want {
		return fmt.Errorf("%w: it answers the query %+v, not %+v", ErrDocument, doc.Query, want)
	}
	return nil
}

// mergePage appends a later page to merged after checking it belongs to
// the same answer.
func mergePage(merged, doc *discovery.Document) error {
	switch {
	case doc.Sequence != merged.Sequence:
		return fmt.Errorf("%w: sequence %d after %d", errMoved, doc.Sequence, merged.Sequence)
	case doc.TotalSize != merged.TotalSize || doc.AllEnvironments != merged.AllEnvironments ||
		!slices.Equal(doc.Environments, merged.Environments):
		return fmt.Errorf("%w: totalSize or environments differ from the first page's", ErrDocument)
	}
	if doc.IssuedAt.Before(merged.IssuedAt) {
		merged.IssuedAt = doc.IssuedAt
	}
	if doc.ExpiresAt.Before(merged.ExpiresAt) {
		merged.ExpiresAt = doc.ExpiresAt
	}
	merged.Servers = append(merged.Servers, doc.Servers...)
	merged.NextPageToken = doc.NextPageToken
	return nil
}

// finish checks the merged document: every entry present once, as many as
// the registry counted, and presents it as one page.
func finish(doc *discovery.Document) (*discovery.Document, error) {
	seen := map[string]bool{}
	for _, e := range doc.Servers {
		key := e.Name + "@" + e.Version
		if seen[key] {
			return nil, fmt.Errorf("%w: %s is listed twice", ErrDocument, key)
		}
		seen[key] = true
	}
	if len(doc.Servers) != doc.TotalSize {
		return nil, fmt.Errorf("%w: the pages hold %d entries, totalSize says %d", ErrDocument, len(doc.Servers), doc.TotalSize)
	}
	doc.NextPageToken, doc.Query.PageToken = "", ""
	return doc, nil
}
