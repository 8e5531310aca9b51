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

	"github.com/mcpreg/mcpreg/attest"
)

// DefaultRegistry is the public npm registry.
const DefaultRegistry = "https://registry.npmjs.org/"

// maxPackumentBytes bounds a package's metadata document.
const maxPackumentBytes = 64 << 20

// release is what the npm registry publishes about one exact version.
type release struct {
	// Integrity is the registry's sha512 of the tarball.
	Integrity attest.Digest
	// IntegrityText is dist.integrity as published.
	IntegrityText string
	// Tarball is where the tarball is downloaded from.
	Tarball *url.URL
}

// Check says whether the configuration is usable (for start-up).
func (n *NPM) Check() error {
	_, err := n.registryURL()
	return err
}

// registryURL is the configured registry with a trailing slash.
func (n *NPM) registryURL() (*url.URL, error) {
	r := n.Registry
	if r == "" {
		r = DefaultRegistry
	}
	u, err := url.Parse(r)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		shown := "(unparsable)"
		if err == nil {
			shown = u.Redacted() // never the password
		}
		return nil, fmt.Errorf("%w: npm registry %q is not an http(s) URL without credentials, query or fragment", ErrFetch, shown)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

// lookup reads the registry's metadata of name and returns what it says
// about exactly version (never a tag or a range).
func (n *NPM) lookup(ctx context.Context, reg *url.URL, name, version string) (*release, error) {
	// Scoped names are requested as @scope%2Fname, as npm does.
	body, err := n.get(ctx, reg, reg.String()+url.PathEscape(name), "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8", maxPackumentBytes)
	if err != nil {
		return nil, err
	}
	var p struct {
		Name     string `json:"name"`
		Versions map[string]struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			Dist    struct {
				Integrity string `json:"integrity"`
				Tarball   string `json:"tarball"`
			} `json:"dist"`
		} `json:"versions"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("%w: npm registry metadata of %s: %w", ErrFetch, name, err)
	}
	v, ok := p.Versions[version]
	if p.Name != name || !ok || v.Name != name || v.Version != version {
		return nil, fmt.Errorf("%w: the npm registry %s has no version %s of %s", ErrFetch, reg.Redacted(), version, name)
	}
	integrity, err := sha512Of(v.Dist.Integrity)
	if err != nil {
		return nil, fmt.Errorf("%w: %s@%s: dist.integrity %q: %w", ErrFetch, name, version, v.Dist.Integrity, err)
	}
	tarball, err := url.Parse(v.Dist.Tarball)
	if err != nil || tarball.Scheme != reg.Scheme || tarball.Host != reg.Host || tarball.User != nil {
		return nil, fmt.Errorf("%w: %s@%s: dist.tarball %q is not on the configured npm registry %s", ErrFetch, name, version, v.Dist.Tarball, reg.Redacted())
	}
	return &release{Integrity: integrity, IntegrityText: v.Dist.Integrity, Tarball: tarball}, nil
}

// sha512Of picks the sha512 digest out of a subresource-integrity value
// (which may list several).
func sha512Of(sri string) (attest.Digest, error) {
	for _, f := range strings.Fields(sri) {
		if strings.HasPrefix(f, "sha512-") {
			return attest.ParseDigest(f)
		}
	}
	return attest.Digest{}, errors.New("the npm registry gives no sha512 integrity for this version")
}

// download reads the tarball of r, at most MaxTarballBytes of it.
func (n *NPM) download(ctx context.Context, r *release) ([]byte, error) {
	// r.Tarball was checked to be on the registry's host.
	return n.get(ctx, r.Tarball, r.Tarball.String(), "application/octet-stream", n.limits().MaxTarballBytes)
}

// get reads one document from the registry, refusing more than maxBytes.
// Redirects are followed only on the registry's own host.
func (n *NPM) get(ctx context.Context, reg *url.URL, target, accept string, maxBytes int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFetch, err)
	}
	req.Header.Set("Accept", accept)
	client := *http.DefaultClient
	if n.HTTPClient != nil {
		client = *n.HTTPClient
	}
	client.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		if next.URL.Scheme != reg.Scheme || next.URL.Host != reg.Host || len(via) > 5 {
			return fmt.Errorf("redirect to %s leaves the npm registry %s", next.URL.Redacted(), reg.Host)
		}
		return nil
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFetch, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: GET %s: %s", ErrFetch, target, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w", ErrFetch, target, err)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("%w: GET %s: more than %d bytes", ErrFetch, target, maxBytes)
	}
	return data, nil
}
