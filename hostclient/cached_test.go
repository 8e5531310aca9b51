package hostclient_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/client"
	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/hostclient"
	"github.com/mcpreg/mcpreg/signing"
)

// cachedClient is f's client with a FileStore and a FileCache beside it,
// having resolved q once with the registry reachable (sequence 7, three
// servers on two pages, read at t0) for the zero Query. It returns the cache directory.
func cachedClient(t *testing.T, f *fakeRegistry) (*hostclient.Client, string) {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state.json")
	c := f.client()
	c.State, c.Cache = hostclient.NewFileStore(state), hostclient.NewFileCache(hostclient.CacheDirFor(state))
	c.OnCacheError = func(err error) { t.Errorf("caching: %v", err) }
	res, err := c.ResolveCached(context.Background(), hostclient.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cached || res.Unreachable != nil || names(res.Document) != "a/one a/two a/three" || !res.ReadAt.Equal(t0) {
		t.Fatalf("with the registry reachable: %+v", res)
	}
	return c, hostclient.CacheDirFor(state)
}

// cacheFiles are the files in dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}

// onlyCacheFile is the single file in dir.
func onlyCacheFile(t *testing.T, dir string) string {
	t.Helper()
	files := cacheFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	return files[0]
}

// status answers every discovery request with code.
func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { http.Error(w, `{"code":14,"message":"down"}`, code) }
}

// dropConnection closes the connection without an answer.
func dropConnection(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }

// TestResolveCachedFallsBack: while the registry cannot be reached, in
// each way that means, ResolveCached returns the cached document, verified
// again, saying it came from the cache, read when, and why.
func TestResolveCachedFallsBack(t *testing.T) {
	tests := map[string]func(f *fakeRegistry, c *hostclient.Client){
		"connection refused": func(f *fakeRegistry, _ *hostclient.Client) { f.srv.Close() },
		"connection closed":  func(f *fakeRegistry, _ *hostclient.Client) { f.fail(dropConnection) },
		"502":                func(f *fakeRegistry, _ *hostclient.Client) { f.fail(status(http.StatusBadGateway)) },
		"503":                func(f *fakeRegistry, _ *hostclient.Client) { f.fail(status(http.StatusServiceUnavailable)) },
		"504":                func(f *fakeRegistry, _ *hostclient.Client) { f.fail(status(http.StatusGatewayTimeout)) },
		"timeout": func(f *fakeRegistry, c *hostclient.Client) {
			f.fail(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
			c.HTTP = &http.Client{Timeout: 100 * time.Millisecond}
		},
		"name does not resolve": func(_ *fakeRegistry, c *hostclient.Client) {
			c.HTTP = &http.Client{Transport: &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
				return nil, &net.DNSError{Err: "no such host", Name: "registry.example", IsNotFound: true}
			}}}
		},
	}
	for name, cut := range tests {
		t.Run(name, func(t *testing.T) {
			f := newFakeRegistry(t)
			f.page = pages(7, 2, "a/one", "a/two", "a/three")
			c, dir := cachedClient(t, f)
			calls := f.calls.Load()
			cut(f, c)
			c.Now = func() time.Time { return t0.Add(4 * time.Minute) }
			res, err := c.ResolveCached(context.Background(), hostclient.Query{})
			if err != nil {
				t.Fatalf("with the cached document valid: %v", err)
			}
			if !res.Cached || res.Unreachable == nil || !res.ReadAt.Equal(t0) || res.Source != onlyCacheFile(t, dir) {
				t.Errorf("resolution %+v, want from the cache file, read at %s, with the registry's error", res, t0)
			}
			if got := names(res.Document); got != "a/one a/two a/three" || res.Document.Sequence != 7 || !res.Document.ExpiresAt.Equal(t0.Add(5*time.Minute)) {
				t.Errorf("cached document %q sequence %d expires %s", got, res.Document.Sequence, res.Document.ExpiresAt)
			}
			if f.calls.Load() != calls {
				t.Errorf("the outage let %d requests through", f.calls.Load()-calls)
			}
		})
	}
}

// TestResolveCachedOnlyWhenUnreachable: a registry that answers, with a
// refusal or a document that does not verify, is not stood in for: the
// error is the registry's, and the cache is not read.
func TestResolveCachedOnlyWhenUnreachable(t *testing.T) {
	other, _ := signing.GenerateKey()
	answer := func(code int) func(f *fakeRegistry, _ *hostclient.Client) {
		return func(f *fakeRegistry, _ *hostclient.Client) { f.fail(status(code)) }
	}
	tests := []struct {
		name       string
		setup      func(f *fakeRegistry, c *hostclient.Client)
		want       error
		wantStatus int // the registry's answer, when want is nil
	}{
		{name: "401", setup: answer(http.StatusUnauthorized), want: client.ErrUnauthenticated},
		{name: "403", setup: answer(http.StatusForbidden), want: client.ErrPermissionDenied},
		{name: "404", setup: answer(http.StatusNotFound), want: client.ErrNotFound},
		{name: "429", setup: answer(http.StatusTooManyRequests), want: client.ErrRateLimited},
		{name: "500", setup: answer(http.StatusInternalServerError), wantStatus: http.StatusInternalServerError},
		{name: "bad signature", setup: func(f *fakeRegistry, _ *hostclient.Client) { f.envelope = tamper }, want: hostclient.ErrSignature},
		{name: "untrusted key", setup: func(_ *fakeRegistry, c *hostclient.Client) {
			c.Keys = map[string]ed25519.PublicKey{other.ID: other.Public()}
		}, want: signing.ErrUnknownKey},
		{name: "expired answer", setup: func(f *fakeRegistry, _ *hostclient.Client) {
			inner := f.page
			f.page = func(q url.Values, n int) *discovery.Document {
				d := inner(q, n)
				d.IssuedAt, d.ExpiresAt = t0.Add(-10*time.Minute), t0.Add(-5*time.Minute)
				return d
			}
		}, want: hostclient.ErrExpired},
		{name: "rolled back answer", setup: func(f *fakeRegistry, _ *hostclient.Client) {
			f.page = pages(6, 2, "a/one", "a/two", "a/three")
		}, want: hostclient.ErrRollback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeRegistry(t)
			f.page = pages(7, 2, "a/one", "a/two", "a/three")
			c, _ := cachedClient(t, f)
			tt.setup(f, c)
			res, err := c.ResolveCached(context.Background(), hostclient.Query{})
			if err == nil {
				t.Fatalf("resolved %+v", res)
			}
			var apiErr *client.APIError
			if tt.want == nil && (!errors.As(err, &apiErr) || apiErr.HTTPStatus != tt.wantStatus) {
				t.Errorf("error %q, want the registry's %d", err, tt.wantStatus)
			} else if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %q does not match %q", err, tt.want)
			}
			if errors.Is(err, hostclient.ErrUnreachable) || strings.Contains(err.Error(), "cache") {
				t.Errorf("error %q: the cache was consulted", err)
			}
		})
	}
}

// TestResolveCachedRefusesABadCache: a cache file that was tampered with,
// is corrupt or holds another document is an error naming the file, never
// a document.
func TestResolveCachedRefusesABadCache(t *testing.T) {
	other := hostclient.Query{Name: "a/two"}
	tests := []struct {
		name   string
		edit   func(t *testing.T, file cacheFileJSON, otherFile cacheFileJSON) cacheFileJSON
		raw    string
		want   error
		saying string
	}{
		{name: "payload bit flipped", edit: func(_ *testing.T, file, _ cacheFileJSON) cacheFileJSON {
			file.Pages[1] = tamper(file.Pages[1])
			return file
		}, want: hostclient.ErrSignature, saying: "page 2"},
		{name: "a page dropped", edit: func(_ *testing.T, file, _ cacheFileJSON) cacheFileJSON {
			file.Pages = file.Pages[:1]
			return file
		}, want: hostclient.ErrDocument, saying: "goes on after the 1 pages cached"},
		{name: "a page repeated", edit: func(_ *testing.T, file, _ cacheFileJSON) cacheFileJSON {
			file.Pages = append(file.Pages, file.Pages[1])
			return file
		}, want: hostclient.ErrDocument, saying: "3 pages cached, but the document ends after 2"},
		{name: "another query's pages", edit: func(_ *testing.T, file, otherFile cacheFileJSON) cacheFileJSON {
			file.Pages = otherFile.Pages
			return file
		}, want: hostclient.ErrDocument, saying: "answers the query"},
		{name: "another key's file", edit: func(_ *testing.T, _, otherFile cacheFileJSON) cacheFileJSON {
			return otherFile
		}, want: hostclient.ErrCacheFile, saying: "it holds the document of key"},
		{name: "not JSON", raw: `{"format":`, want: hostclient.ErrCacheFile, saying: "unexpected EOF"},
		{name: "unknown field", raw: `{"format":"x","trusted":true}`, want: hostclient.ErrCacheFile, saying: `unknown field "trusted"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeRegistry(t)
			f.page = pages(7, 2, "a/one", "a/two", "a/three")
			c, dir := cachedClient(t, f)
			path := onlyCacheFile(t, dir)
			f.page = pages(7, 2, "a/two")
			if _, err := c.ResolveCached(context.Background(), other); err != nil {
				t.Fatal(err)
			}
			var otherPath string
			for _, p := range cacheFiles(t, dir) {
				if p != path {
					otherPath = p
				}
			}
			data := []byte(tt.raw)
			if tt.edit != nil {
				var err error
				if data, err = json.Marshal(tt.edit(t, readCacheFile(t, path), readCacheFile(t, otherPath))); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			f.fail(status(http.StatusServiceUnavailable))
			res, err := c.ResolveCached(context.Background(), hostclient.Query{})
			if err == nil {
				t.Fatalf("a bad cache file stood in: %+v", res)
			}
			for _, want := range []error{hostclient.ErrUnreachable, tt.want} {
				if !errors.Is(err, want) {
					t.Errorf("error %q does not match %q", err, want)
				}
			}
			for _, says := range []string{"registry unreachable (page 1: 503 Service Unavailable: down)", path, tt.saying} {
				if !strings.Contains(err.Error(), says) {
					t.Errorf("error %q does not say %q", err, says)
				}
			}
		})
	}
}

// cacheFileJSON is a FileCache file as the tests edit it.
type cacheFileJSON struct {
	Format   string          `json:"format"`
	Key      string          `json:"key"`
	Registry string          `json:"registry"`
	Query    json.RawMessage `json:"query"`
	ReadAt   time.Time       `json:"readAt"`
	Pages    [][]byte        `json:"pages"`
}

func readCacheFile(t *testing.T, path string) cacheFileJSON {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out cacheFileJSON
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestResolveCachedExpired: an expired cached document does not stand in;
// the error names both causes.
func TestResolveCachedExpired(t *testing.T) {
	f := newFakeRegistry(t)
	f.page = pages(7, 2, "a/one", "a/two", "a/three")
	c, dir := cachedClient(t, f)
	f.fail(status(http.StatusServiceUnavailable))
	c.Now = func() time.Time { return t0.Add(5 * time.Minute) }
	res, err := c.ResolveCached(context.Background(), hostclient.Query{})
	if err == nil {
		t.Fatalf("an expired cached document stood in: %+v", res)
	}
	for _, want := range []error{hostclient.ErrUnreachable, hostclient.ErrExpired} {
		if !errors.Is(err, want) {
			t.Errorf("error %q does not match %q", err, want)
		}
	}
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != http.StatusServiceUnavailable {
		t.Errorf("error %q does not carry the registry's 503", err)
	}
	want := "registry unreachable (page 1: 503 Service Unavailable: down), and the cached document expired at 2026-03-01T12:05:00Z " +
		"(read at 2026-03-01T12:00:00Z; " + onlyCacheFile(t, dir) + "; now is 2026-03-01T12:05:00Z)"
	if err.Error() != want {
		t.Errorf("error\n%q, want\n%q", err, want)
	}
}

// TestResolveCachedRollback: a cached document older than the last one
// accepted from the registry does not stand in, and nothing is saved.
func TestResolveCachedRollback(t *testing.T) {
	f := newFakeRegistry(t)
	f.page = pages(7, 2, "a/one", "a/two", "a/three")
	c, dir := cachedClient(t, f)
	if err := c.State.Save(f.url, 8); err != nil { // accepted since, e.g. another query's document
		t.Fatal(err)
	}
	f.fail(dropConnection)
	res, err := c.ResolveCached(context.Background(), hostclient.Query{})
	if err == nil {
		t.Fatalf("a rolled-back cached document stood in: %+v", res)
	}
	for _, want := range []error{hostclient.ErrUnreachable, hostclient.ErrRollback} {
		if !errors.Is(err, want) {
			t.Errorf("error %q does not match %q", err, want)
		}
	}
	if says := "the cached document in " + onlyCacheFile(t, dir) + " has sequence 7, but sequence 8"; !strings.Contains(err.Error(), says) {
		t.Errorf("error %q does not say %q", err, says)
	}
	if last, _ := c.State.Last(f.url); last != 8 {
		t.Errorf("sequence %d after a refused fallback, want 8", last)
	}
}

// TestResolveCachedNothingCached: without a cached document for the same
// registry, token and query, an unreachable registry is an error saying
// so; without a cache ResolveCached refuses to run.
func TestResolveCachedNothingCached(t *testing.T) {
	f := newFakeRegistry(t)
	f.page = pages(7, 2, "a/one", "a/two", "a/three")
	c, _ := cachedClient(t, f)
	f.fail(status(http.StatusBadGateway))
	for name, setup := range map[string]func(c *hostclient.Client) hostclient.Query{
		"another query": func(*hostclient.Client) hostclient.Query { return hostclient.Query{Name: "a/one"} },
		"another token": func(c *hostclient.Client) hostclient.Query { c.Token = "other-host-token"; return hostclient.Query{} },
	} {
		t.Run(name, func(t *testing.T) {
			c := *c
			q := setup(&c)
			_, err := c.ResolveCached(context.Background(), q)
			if !errors.Is(err, hostclient.ErrUnreachable) || !strings.Contains(err.Error(), "no discovery document for this query is cached") {
				t.Errorf("error %v, want an unreachable registry and nothing cached", err)
			}
		})
	}
	c.Cache = nil
	if _, err := c.ResolveCached(context.Background(), hostclient.Query{}); !errors.Is(err, hostclient.ErrNoCache) {
		t.Errorf("without a cache: %v", err)
	}
}

// TestResolveKeepsTheCacheFresh: every verified document replaces the
// cached one, and a fallback uses the newest; the sequence is accepted
// once, by the resolve that read it.
func TestResolveKeepsTheCacheFresh(t *testing.T) {
	f := newFakeRegistry(t)
	f.page = pages(7, 2, "a/one", "a/two", "a/three")
	c, _ := cachedClient(t, f)
	f.page = pages(9, 2, "a/one", "a/two")
	c.Now = func() time.Time { return t0.Add(time.Minute) }
	if _, err := c.Resolve(context.Background(), hostclient.Query{}); err != nil {
		t.Fatal(err)
	}
	f.fail(dropConnection)
	res, err := c.ResolveCached(context.Background(), hostclient.Query{})
	if err != nil || !res.Cached || res.Document.Sequence != 9 || names(res.Document) != "a/one a/two" || !res.ReadAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("%v %+v, want the document of sequence 9 read at %s", err, res, t0.Add(time.Minute))
	}
}
