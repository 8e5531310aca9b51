package scan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/mcpreg/mcpreg/finding"
)

// Kinds of the findings about what a remote server says about its
// authorization (see AuthMetadata).
const (
	// KindAuthMetadataRefused: a metadata request, or one of its
	// redirects, was refused: a restricted address, a scheme other than
	// http or https, or too many redirects.
	KindAuthMetadataRefused = "auth.metadata_refused"
	// KindAuthMetadataUnreadable: a metadata document could not be read:
	// too large, not a strict JSON object, members of the wrong type, a
	// status other than 200, no answer in time.
	KindAuthMetadataUnreadable = "auth.metadata_unreadable"
	// KindAuthResourceMismatch: the protected-resource metadata's
	// "resource" is neither the MCP endpoint nor its origin (RFC 9728 §3.3).
	KindAuthResourceMismatch = "auth.resource_mismatch"
	// KindAuthIssuerMismatch: an authorization server's metadata names
	// another "issuer" than the URL it was listed under (RFC 8414 §3.3).
	KindAuthIssuerMismatch = "auth.issuer_mismatch"
)

// Bounds of the metadata step of an HTTP scan.
const (
	maxAuthDocBytes  = 64 << 10         // one metadata document
	maxAuthServers   = 4                // authorization servers read
	maxAuthRedirects = 3                // per metadata request
	authRequestWait  = 10 * time.Second // per metadata request
	authStepWait     = 20 * time.Second // the whole step
)

// AuthMetadata is what a remote server says about its authorization.
type AuthMetadata struct {
	MetadataURL          string          `json:"metadataUrl"`          // the protected-resource metadata document read
	Resource             string          `json:"resource"`             // its "resource" (the token audience)
	AuthorizationServers []string        `json:"authorizationServers"` // its "authorization_servers", as listed
	ScopesSupported      []string        `json:"scopesSupported,omitempty"`
	Servers              []AuthServer    `json:"servers,omitempty"` // metadata of each authorization server read
	Raw                  json.RawMessage `json:"raw"`               // the document as received
}

// AuthServer is the metadata of one authorization server a protected
// resource lists, or why it could not be read.
type AuthServer struct {
	URL             string          `json:"url"` // as listed in authorization_servers
	MetadataURL     string          `json:"metadataUrl,omitempty"`
	Issuer          string          `json:"issuer,omitempty"`
	ScopesSupported []string        `json:"scopesSupported,omitempty"`
	Raw             json.RawMessage `json:"raw,omitempty"`
	Error           string          `json:"error,omitempty"` // why it could not be read
}

// readAuth reads the OAuth metadata of an HTTP target into snap, within
// authStepWait of ctx (the scan's deadline); other targets have none.
// Failures become findings, never a failed scan.
func (r *Reader) readAuth(ctx context.Context, t Target, snap *Snapshot) {
	endpoint, ok := httpEndpoint(t)
	if !ok {
		return
	}
	m := newMetaReader(r.allow)
	defer m.close()
	snap.Auth = m.read(ctx, endpoint)
	snap.Findings = append(snap.Findings, m.findings...)
}

// httpEndpoint returns the MCP endpoint of an HTTP target.
func httpEndpoint(t Target) (*url.URL, bool) {
	var raw string
	switch t := t.(type) {
	case HTTPTarget:
		raw = t.URL
	case *HTTPTarget:
		if t == nil {
			return nil, false
		}
		raw = t.URL
	default:
		return nil, false
	}
	u, err := url.Parse(raw)
	return u, err == nil && u.Host != ""
}

// read runs discover within m.stepWait of ctx.
func (m *metaReader) read(ctx context.Context, endpoint *url.URL) *AuthMetadata {
	ctx, cancel := context.WithTimeout(ctx, m.stepWait)
	defer cancel()
	return m.discover(ctx, endpoint)
}

// discover reads the protected-resource metadata of endpoint and the
// metadata of the authorization servers it lists. It returns nil when the
// server publishes none or it cannot be read (a finding says why).
func (m *metaReader) discover(ctx context.Context, endpoint *url.URL) *AuthMetadata {
	const what = "the protected-resource metadata"
	doc, at, err := m.first(ctx, prmURLs(endpoint))
	if doc == nil && err == nil {
		return nil // not published
	}
	var auth *AuthMetadata
	if err == nil {
		auth, err = parsePRM(doc)
	}
	if err != nil {
		m.failed(what+" at "+at, err)
		return nil
	}
	auth.MetadataURL = at
	m.checkResource(auth, endpoint)
	auth.Servers = m.servers(ctx, auth.AuthorizationServers)
	return auth
}

// servers reads the metadata of the first maxAuthServers of list.
func (m *metaReader) servers(ctx context.Context, list []string) []AuthServer {
	var out []AuthServer
	for i, as := range list {
		if i >= maxAuthServers {
			out = append(out, AuthServer{URL: as, Error: fmt.Sprintf("not read: more than %d", maxAuthServers)})
			continue
		}
		out = append(out, m.server(ctx, as))
	}
	return out
}

// server reads the metadata of the authorization server as (an absolute
// http or https URL, checked by parsePRM).
func (m *metaReader) server(ctx context.Context, as string) AuthServer {
	s := AuthServer{URL: as}
	u, err := url.Parse(as)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	urls := asURLs(u)
	doc, at, err := m.first(ctx, urls)
	s.MetadataURL = at
	if err == nil && doc == nil {
		err = &fetchError{reason: fmt.Sprintf("no metadata at %s: each answered with a 4xx status", strings.Join(urls, ", "))}
	}
	if err == nil {
		s.Issuer, s.ScopesSupported, err = parseASMetadata(doc)
	}
	if err != nil {
		if at != "" {
			err = fmt.Errorf("%s: %w", at, err)
		}
		s.Error = err.Error()
		m.failed("the metadata of authorization server "+as, err)
		return s
	}
	s.Raw = doc
	m.checkIssuer(s)
	return s
}

// failed records why the document what could not be read.
func (m *metaReader) failed(what string, err error) {
	var fe *fetchError
	if errors.As(err, &fe) && fe.refused {
		m.add(KindAuthMetadataRefused, finding.High, fmt.Sprintf("the request for %s was refused: %s", what, err))
		return
	}
	m.add(KindAuthMetadataUnreadable, finding.Medium, fmt.Sprintf("%s could not be read: %s", what, err))
}

// checkResource reports a "resource" that is neither the endpoint nor its
// origin, each compared without a trailing slash.
func (m *metaReader) checkResource(auth *AuthMetadata, endpoint *url.URL) {
	shown := publicURL(endpoint)
	origin := endpoint.Scheme + "://" + endpoint.Host
	res := strings.TrimSuffix(auth.Resource, "/")
	for _, ok := range []string{endpoint.String(), shown, origin} {
		if res == strings.TrimSuffix(ok, "/") {
			return
		}
	}
	m.add(KindAuthResourceMismatch, finding.Medium, fmt.Sprintf(
		"the protected-resource metadata at %s names resource %q, which is neither the MCP endpoint %s nor its origin %s (RFC 9728 §3.3): tokens for it are meant for another server",
		auth.MetadataURL, auth.Resource, shown, origin))
}

// checkIssuer reports metadata whose "issuer" is not exactly the URL the
// authorization server was listed under.
func (m *metaReader) checkIssuer(s AuthServer) {
	if s.Issuer == s.URL {
		return
	}
	has := fmt.Sprintf("has issuer %q", s.Issuer)
	if s.Issuer == "" {
		has = "has no issuer"
	}
	m.add(KindAuthIssuerMismatch, finding.Medium, fmt.Sprintf(
		"the authorization server metadata at %s %s, not the authorization server %q the protected-resource metadata lists (RFC 8414 §3.3): a client must reject it",
		s.MetadataURL, has, s.URL))
}

func (m *metaReader) add(kind string, sev finding.Severity, msg string) {
	m.findings = append(m.findings, finding.Finding{Kind: kind, Severity: sev, Message: msg})
}

// publicURL is u without user information, query or fragment, which may
// carry credentials.
func publicURL(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = nil, "", false, "", ""
	return v.String()
}
