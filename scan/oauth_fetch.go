package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpreg/mcpreg/finding"
)

// metaReader fetches OAuth metadata documents for one scan: through the
// dial guard, without a proxy, without any of the target's headers (the
// documents are public; a hostile server may redirect anywhere).
type metaReader struct {
	client   *http.Client
	base     *http.Transport
	wait     time.Duration // per request
	stepWait time.Duration // for all requests of one scan
	findings []finding.Finding
}

func newMetaReader(allow AllowList) *metaReader {
	base := &http.Transport{
		Proxy:                  nil, // a proxy would dial instead of the guard
		DialContext:            (&dialGuard{allow: allow, trip: &tripwire{}}).DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	// No Jar: no cookies; no headers but Accept are ever set.
	client := &http.Client{Transport: base, CheckRedirect: checkMetaRedirect}
	return &metaReader{client: client, base: base, wait: authRequestWait, stepWait: authStepWait}
}

func (m *metaReader) close() { m.base.CloseIdleConnections() }

// fetchError is why a metadata document could not be read; refused marks
// a request the dial guard or the redirect rules stopped.
type fetchError struct {
	refused bool
	reason  string
}

func (e *fetchError) Error() string { return e.reason }

// errAbsent: the URL answered with a 4xx status: no document there.
var errAbsent = errors.New("no metadata document")

// first fetches urls in order and returns the first document found, with
// its URL. A URL that answers 4xx is skipped; any other failure ends the
// search with its URL. All absent: nil, "", nil.
func (m *metaReader) first(ctx context.Context, urls []string) ([]byte, string, error) {
	for _, u := range urls {
		doc, err := m.fetch(ctx, u)
		if errors.Is(err, errAbsent) {
			continue
		}
		return doc, u, err
	}
	return nil, "", nil
}

// fetch GETs the document at u: status 200 and at most maxAuthDocBytes,
// within m.wait and the metadata step's ctx.
func (m *metaReader) fetch(step context.Context, u string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(step, m.wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &fetchError{reason: err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := m.client.Do(req)
	if err != nil {
		return nil, m.requestError(step, ctx, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return nil, errAbsent
	case resp.StatusCode != http.StatusOK:
		return nil, &fetchError{reason: fmt.Sprintf("answered status %d (%s), not 200", resp.StatusCode, http.StatusText(resp.StatusCode))}
	}
	data, err := body(resp)
	if err != nil && !errors.Is(err, errTooLarge) {
		return nil, m.requestError(step, ctx, err)
	}
	return data, err
}

// errTooLarge: a document over maxAuthDocBytes.
var errTooLarge = &fetchError{reason: fmt.Sprintf("the document is larger than the limit of 64 KiB (%d bytes) for one metadata document", maxAuthDocBytes)}

// body reads a response body of at most maxAuthDocBytes.
func body(resp *http.Response) ([]byte, error) {
	if resp.ContentLength > maxAuthDocBytes {
		return nil, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAuthDocBytes+1))
	switch {
	case err != nil:
		return nil, err
	case len(data) > maxAuthDocBytes:
		return nil, errTooLarge
	}
	return data, nil
}

// requestError explains a failed request: refused (ErrDenied from the dial
// guard or checkMetaRedirect), out of time (the step's or the request's),
// or another failure.
func (m *metaReader) requestError(step, req context.Context, err error) error {
	switch {
	case errors.Is(err, ErrDenied):
		return &fetchError{refused: true, reason: err.Error()}
	case step.Err() != nil:
		return &fetchError{reason: fmt.Sprintf("no complete answer before the metadata step ran out of time (%s, or the rest of the scan deadline when that is shorter)", m.stepWait)}
	case req.Err() != nil:
		return &fetchError{reason: fmt.Sprintf("no complete answer within %s, the limit for one metadata request", m.wait)}
	}
	return &fetchError{reason: err.Error()}
}

// checkMetaRedirect follows at most maxAuthRedirects redirects to http or
// https URLs, to any origin: the dial guard checks each connection, and
// metadata requests carry no credentials.
func checkMetaRedirect(req *http.Request, via []*http.Request) error {
	from := via[len(via)-1].URL
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: redirect from %s to %q: only http and https are followed", ErrDenied, from.Redacted(), req.URL.Redacted())
	}
	if len(via) > maxAuthRedirects {
		return fmt.Errorf("%w: more than %d redirects from %s", ErrDenied, maxAuthRedirects, via[0].URL.Redacted())
	}
	return nil
}

// prmURLs are the protected-resource metadata URLs of endpoint to try, in
// order (RFC 9728 §3.1): the well-known path inserted before the
// endpoint's path, then at the root. Query and fragment are dropped.
func prmURLs(endpoint *url.URL) []string {
	const wk = "/.well-known/oauth-protected-resource"
	origin := endpoint.Scheme + "://" + endpoint.Host
	if p := strings.TrimSuffix(endpoint.EscapedPath(), "/"); p != "" {
		return []string{origin + wk + p, origin + wk}
	}
	return []string{origin + wk}
}

// asURLs are the metadata URLs of authorization server as to try, in order:
// RFC 8414 §3.1, then OpenID Connect discovery with the well-known path
// inserted and appended (the same for an issuer without a path).
func asURLs(as *url.URL) []string {
	const oauth, oidc = "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"
	origin := as.Scheme + "://" + as.Host
	if p := strings.TrimSuffix(as.EscapedPath(), "/"); p != "" {
		return []string{origin + oauth + p, origin + oidc + p, origin + p + oidc}
	}
	return []string{origin + oauth, origin + oidc}
}
