package registry

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/signing"
)

// Discovery page sizes.
const (
	DefaultDiscoveryPageSize = 500
	MaxDiscoveryPageSize     = 1000
)

// DefaultDiscoveryTTL is how long a signed discovery document is valid.
const DefaultDiscoveryTTL = 5 * time.Minute

// DiscoverySigner signs discovery documents with the registry key.
type DiscoverySigner struct {
	Keys *signing.KeySet
	// TTL is the validity of a document; zero means DefaultDiscoveryTTL.
	TTL time.Duration

	mu    sync.Mutex
	cache map[string]*Resolved
	// cacheOf is the discovery index the cached answers were computed from.
	cacheOf *discoveryIndex
}

func (d *DiscoverySigner) ttl() time.Duration {
	if d.TTL <= 0 {
		return DefaultDiscoveryTTL
	}
	return d.TTL
}

// WithDiscoverySigner enables discovery reads, signed with d's keys.
func WithDiscoverySigner(d *DiscoverySigner) Option { return func(s *settings) { s.signer = d } }

// DiscoveryKeys are the keys the registry publishes (current and retiring).
func (s *Discovery) DiscoveryKeys() []signing.PublishedKey {
	if s.signer == nil {
		return nil
	}
	return s.signer.Keys.Published(s.now())
}

// ResolveQuery narrows a discovery read.
type ResolveQuery struct {
	Name, Version, Namespace, Owner string
	PageSize                        int
	PageToken                       string
}

// Resolved is a signed discovery document.
type Resolved struct {
	// Envelope is the DSSE envelope JSON.
	Envelope []byte
	// ETag is a strong entity tag of the envelope, quoted.
	ETag     string
	IssuedAt time.Time
	// Document is what the envelope carries.
	Document *discovery.Document
}

// mayDiscover: hosts read discovery for their environments; admins and
// reviewers read everything; owners never do.
func mayDiscover(c *Caller) error {
	switch c.Role {
	case RoleHost, RoleAdmin, RoleReviewer:
		return nil
	}
	return deniedf("role %s does not read discovery (hosts, reviewers and admins do)", c.Role)
}

// Resolve answers a discovery read from the in-memory index with a signed
// document. Answers are kept briefly per (index, environments, query) and
// re-signed each quarter of their validity.
func (s *Discovery) Resolve(ctx context.Context, c *Caller, q ResolveQuery) (*Resolved, error) {
	if err := mayDiscover(c); err != nil {
		return nil, err
	}
	if s.signer == nil {
		return nil, fmt.Errorf("%w: discovery is not configured (no signing key)", ErrFailedPrecondition)
	}
	if err := checkResolveQuery(&q, s.limits.MaxPageSize); err != nil {
		return nil, err
	}
	idx, err := s.discoveryIndex(ctx)
	if err != nil {
		return nil, err
	}
	labels, all := c.EnvLabels, c.Role != RoleHost
	key := fmt.Sprintf("%t|%s|%s|%s|%s|%s|%d|%s", all, strings.Join(labels, ","), q.Name, q.Version, q.Namespace, q.Owner, q.PageSize, q.PageToken)
	now := s.now()
	d := s.signer
	d.mu.Lock()
	// The cache holds answers of one index; an older index (a caller that
	// raced a rebuild) neither reads nor replaces it.
	if d.cacheOf == nil || (d.cacheOf != idx && idx.gen >= d.cacheOf.gen) || len(d.cache) > 4096 {
		d.cache, d.cacheOf = map[string]*Resolved{}, idx
	}
	if r := d.cache[key]; d.cacheOf == idx && r != nil && now.Sub(r.IssuedAt) < d.ttl()/4 {
		d.mu.Unlock()
		return r, nil
	}
	d.mu.Unlock()
	doc, err := idx.document(q, labels, all)
	if err != nil {
		return nil, err
	}
	// Issued at the start of the current quarter of the validity: every
	// replica signing the same index in the same quarter produces the same
	// bytes (Ed25519 is deterministic), so ETags agree behind a load
	// balancer, and a document always has at least 3/4 of its validity left.
	issued := now.Truncate(d.ttl() / 4)
	doc.IssuedAt, doc.ExpiresAt = issued, issued.Add(d.ttl())
	r, err := d.sign(doc)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	if d.cacheOf == idx {
		d.cache[key] = r
	}
	d.mu.Unlock()
	return r, nil
}

func (d *DiscoverySigner) sign(doc *discovery.Document) (*Resolved, error) {
	payload, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode discovery document: %w", err)
	}
	env, err := signing.Sign(d.Keys.Current, signing.PayloadType, payload)
	if err != nil {
		return nil, fmt.Errorf("sign discovery document: %w", err)
	}
	sum := sha256.Sum256(env)
	return &Resolved{Envelope: env, ETag: `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`,
		IssuedAt: doc.IssuedAt, Document: doc}, nil
}

func checkResolveQuery(q *ResolveQuery, _ int) error {
	if q.Version != "" && q.Name == "" {
		return invalidf("version %q needs a server name", q.Version)
	}
	if q.Name != "" && !serverNameRE.MatchString(q.Name) {
		return invalidf("server name %q does not match ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", q.Name)
	}
	switch {
	case q.PageSize < 0 || q.PageSize > MaxDiscoveryPageSize:
		return invalidf("page size %d: want 1 to %d", q.PageSize, MaxDiscoveryPageSize)
	case q.PageSize == 0:
		q.PageSize = DefaultDiscoveryPageSize
	}
	if q.Version == "latest" {
		q.Version = ""
	}
	return nil
}

// discoveryPageToken encodes the last server name of a page.
func discoveryPageToken(name string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("after:" + name))
}

func parseDiscoveryPageToken(tok string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	name, ok := strings.CutPrefix(string(raw), "after:")
	if err != nil || !ok {
		return "", invalidf("page token %q is not one this registry issued", tok)
	}
	return name, nil
}

// document selects the entries visible with labels (all: every
// environment) matching q, one page of them.
func (idx *discoveryIndex) document(q ResolveQuery, labels []string, all bool) (*discovery.Document, error) {
	after := ""
	if q.PageToken != "" {
		var err error
		if after, err = parseDiscoveryPageToken(q.PageToken); err != nil {
			return nil, err
		}
	}
	doc := &discovery.Document{Type: discovery.DocumentType, Sequence: idx.seq, Environments: labels,
		AllEnvironments: all, Servers: []discovery.Entry{},
		Query: discovery.Query{Name: q.Name, Version: q.Version, Namespace: q.Namespace, Owner: q.Owner, PageSize: q.PageSize, PageToken: q.PageToken}}
	if doc.Environments == nil {
		doc.Environments = []string{}
	}
	// The servers a query can match: one name; or a namespace's, which
	// sort together (a name is its namespace, a slash, the rest); or all.
	servers, n := idx.servers.from(0), idx.servers.len()
	prefix := ""
	switch {
	case q.Name != "":
		i, ok := idx.servers.search(q.Name)
		servers, n = idx.servers.from(i), 0
		if ok {
			n = i + 1
		}
	case q.Namespace != "":
		prefix = q.Namespace + "/"
		i, _ := idx.servers.search(prefix)
		servers = idx.servers.from(i)
	}
	// start is the position of the first server after the page token's.
	start, found := idx.servers.search(after)
	if found {
		start++
	}
	// Every server the caller sees (no filter): the index counts them, so
	// only the page is read; otherwise the servers the query can match
	// are counted here.
	counted := q.Name == "" && q.Namespace == "" && q.Owner == "" && q.Version == ""
	if counted {
		doc.TotalSize, servers = idx.visible(labels, all), idx.servers.from(start)
	}
	for i, ds := range servers {
		if i >= n || !strings.HasPrefix(ds.name, prefix) {
			break
		}
		if (q.Namespace != "" && ds.namespace != q.Namespace) || (q.Owner != "" && ds.owner != q.Owner) {
			continue
		}
		v := ds.pick(q.Version, labels, all)
		if v == nil {
			continue
		}
		if !counted {
			doc.TotalSize++
		}
		if i < start {
			continue
		}
		if len(doc.Servers) == q.PageSize {
			doc.NextPageToken = discoveryPageToken(doc.Servers[len(doc.Servers)-1].Name)
			if counted {
				break
			}
			continue
		}
		doc.Servers = append(doc.Servers, v.entry())
		doc.Servers[len(doc.Servers)-1].Latest = v == ds.pick("", labels, all)
	}
	return doc, nil
}

// pick returns the version asked for ("" = the highest) if the caller may
// use it.
func (ds *discoveryServer) pick(ver string, labels []string, all bool) *discoveryVersion {
	for _, v := range ds.versions {
		if (ver == "" || v.version == ver) && (all || v.visibleTo(labels)) {
			return v
		}
	}
	return nil
}
