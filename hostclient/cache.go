package hostclient

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"
)

// DocumentCache keeps the signed pages of verified discovery documents,
// one document per key, so that ResolveCached can verify one again while
// the registry cannot be reached. A cache is not trusted: everything it
// returns is verified again as if the registry had just sent it.
type DocumentCache interface {
	// Load returns the document stored under key; nil and no error when
	// there is none. An entry that cannot be read is an error naming it.
	Load(key string) (*CachedDocument, error)
	// Store keeps doc under doc.Key, replacing what was there.
	Store(doc *CachedDocument) error
}

// CachedDocument is what a DocumentCache holds for one registry, token
// and query.
type CachedDocument struct {
	// Key identifies the registry, the token and the query (Client
	// computes it; caches treat it as an opaque name of 64 hex digits).
	Key string
	// Registry and Query say what the document answers, for people
	// reading the cache; the signed pages say it again, and only they
	// count.
	Registry string
	Query    Query
	// ReadAt is when the pages were read from the registry, by the host's
	// clock. It is not signed: it only dates the fallback in messages.
	ReadAt time.Time
	// Pages are the DSSE envelopes exactly as the registry sent them, in
	// page order.
	Pages [][]byte
	// Source says where Load read the document (a file's path), for
	// messages; caches do not store it.
	Source string
}

// cacheKeyVersion changes whenever what goes into a key does.
const cacheKeyVersion = "mcpreg-hostclient-cache/v1"

// cacheKey names the cached document of q from registry, as seen with the
// client's token: another token may be allowed other servers, so it never
// shares an entry. The token itself is not stored, only this digest.
func (c *Client) cacheKey(registry string, q Query) string {
	version := q.Version
	if version == "latest" {
		version = ""
	}
	var b []byte
	for _, s := range []string{cacheKeyVersion, registry, c.Token, q.Name, version, q.Namespace, q.Owner} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendVarint(b, int64(q.PageSize))
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// storeCached keeps the pages of q's document just verified, when the
// client has a cache, telling OnCacheError what failed.
func (c *Client) storeCached(registry string, q Query, pages [][]byte) {
	if c.Cache == nil {
		return
	}
	doc := &CachedDocument{Key: c.cacheKey(registry, q), Registry: registry, Query: q, ReadAt: c.now().UTC(), Pages: pages}
	if err := c.Cache.Store(doc); err != nil && c.OnCacheError != nil {
		c.OnCacheError(fmt.Errorf("keeping the discovery document for use while %s is unreachable: %w", registry, err))
	}
}
