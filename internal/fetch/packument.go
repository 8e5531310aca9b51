package fetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpreg/mcpreg/attest"
)

// Packuments reads what an npm registry publishes about a package version:
// the digest the registry itself obtains for an npm artifact, rather than
// one its owner declares.
type Packuments struct {
	// Registry is the npm registry's URL; empty means DefaultRegistry.
	Registry string
	// Client makes the requests; nil means one with a 30-second timeout.
	Client *http.Client
	// MaxBytes caps a packument (default 64 MiB: popular packages have
	// thousands of versions).
	MaxBytes int64
}

var defaultClient = &http.Client{Timeout: 30 * time.Second}

// Integrity returns the dist.integrity the registry publishes for exactly
// name@version, as a sha512 (or sha384, sha256) digest. A package or
// version the registry does not have, or one it gives no usable integrity
// for, is an error wrapping ErrFetch that names it.
func (p Packuments) Integrity(ctx context.Context, name, version string) (attest.Digest, error) {
	if !npmName.MatchString(name) {
		return attest.Digest{}, fmt.Errorf("%w: %q is not an npm package name", ErrFetch, name)
	}
	if !npmVersion.MatchString(version) {
		return attest.Digest{}, fmt.Errorf("%w: %s: want an exact version, not %q", ErrFetch, name, version)
	}
	doc, err := p.packument(ctx, name)
	if err != nil {
		return attest.Digest{}, err
	}
	v, ok := doc.Versions[version]
	if !ok {
		return attest.Digest{}, fmt.Errorf("%w: npm registry %s has no version %s of %s", ErrFetch, p.registry(), version, name)
	}
	d, err := strongest(v.Dist.Integrity)
	if err != nil {
		return attest.Digest{}, fmt.Errorf("%w: npm registry %s: %s@%s: dist.integrity %q: %w", ErrFetch, p.registry(), name, version, v.Dist.Integrity, err)
	}
	return d, nil
}

type packument struct {
	Versions map[string]struct {
		Dist struct {
			Integrity string `json:"integrity"`
		} `json:"dist"`
	} `json:"versions"`
}

func (p Packuments) registry() string {
	if p.Registry == "" {
		return DefaultRegistry
	}
	return p.Registry
}

func (p Packuments) packument(ctx context.Context, name string) (*packument, error) {
	u := strings.TrimSuffix(p.registry(), "/") + "/" + url.PathEscape(name)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: npm registry %s: %w", ErrFetch, p.registry(), err)
	}
	// The abbreviated document npm install reads: versions with dist only.
	req.Header.Set("Accept", "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8")
	client := p.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: npm registry: %w", ErrFetch, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%w: npm registry %s has no package %s", ErrFetch, p.registry(), name)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: npm registry %s: GET %s: %s", ErrFetch, p.registry(), name, resp.Status)
	}
	limit := p.MaxBytes
	if limit <= 0 {
		limit = 64 << 20
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%w: npm registry: reading %s: %w", ErrFetch, name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: npm registry: the document of %s is larger than %d bytes", ErrFetch, name, limit)
	}
	var doc packument
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: npm registry: the document of %s is not JSON: %w", ErrFetch, name, err)
	}
	return &doc, nil
}

// strongest picks the strongest supported hash of an SRI integrity value
// ("sha512-... sha1-..."); sha1 alone is not enough.
func strongest(integrity string) (attest.Digest, error) {
	var best attest.Digest
	rank := map[string]int{attest.SHA256: 1, attest.SHA384: 2, attest.SHA512: 3}
	for _, part := range strings.Fields(integrity) {
		part, _, _ = strings.Cut(part, "?") // SRI options
		d, err := attest.ParseDigest(part)
		if err != nil {
			continue
		}
		if rank[d.Algorithm] > rank[best.Algorithm] {
			best = d
		}
	}
	if best.Algorithm == "" {
		return attest.Digest{}, errors.New("no sha256, sha384 or sha512 hash")
	}
	return best, nil
}
