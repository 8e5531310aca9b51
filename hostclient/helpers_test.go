package hostclient_test

import (
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/hostclient"
	"github.com/mcpreg/mcpreg/signing"
)

// t0 is the fake registry's clock.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeRegistry serves signed discovery pages built by page, and answers
// connect-time checks with check.
type fakeRegistry struct {
	url string
	srv *httptest.Server
	key *signing.Key
	// outage, when set, answers discovery requests instead (a proxy's
	// 503, a dropped connection, ...).
	outage atomic.Pointer[http.HandlerFunc]
	calls  atomic.Int32 // discovery requests
	// page builds the document for one request (n counts requests from 1).
	page func(q url.Values, n int) *discovery.Document
	// envelope, when set, replaces the signed envelope.
	envelope func(signed []byte) []byte
	// check answers POST /v1/discovery/check.
	check       func(w http.ResponseWriter, body map[string]any)
	checkCalls  atomic.Int32
	lastCheckIn map[string]any
}

func newFakeRegistry(t *testing.T) *fakeRegistry {
	t.Helper()
	key, err := signing.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRegistry{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/discovery/servers", func(w http.ResponseWriter, r *http.Request) {
		if outage := f.outage.Load(); outage != nil {
			(*outage)(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer host-token" {
			http.Error(w, `{"code":16,"message":"bearer token required"}`, http.StatusUnauthorized)
			return
		}
		n := int(f.calls.Add(1))
		payload, _ := json.Marshal(f.page(r.URL.Query(), n))
		env, err := signing.Sign(f.key, signing.PayloadType, payload)
		if err != nil {
			t.Error(err)
		}
		if f.envelope != nil {
			env = f.envelope(env)
		}
		_, _ = w.Write(env)
	})
	mux.HandleFunc("POST /v1/discovery/check", func(w http.ResponseWriter, r *http.Request) {
		f.checkCalls.Add(1)
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.lastCheckIn = body
		f.check(w, body)
	})
	mux.HandleFunc("GET /.well-known/mcpreg/discovery-keys.json", func(w http.ResponseWriter, _ *http.Request) {
		pk, _ := signing.PublishedKeyFor(f.key, nil)
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []signing.PublishedKey{pk}})
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	f.url = f.srv.URL
	return f
}

// fail has discovery requests answered by h from now on.
func (f *fakeRegistry) fail(h http.HandlerFunc) { f.outage.Store(&h) }

// client returns a hostclient trusting the registry's key, at t0.
func (f *fakeRegistry) client() *hostclient.Client {
	return &hostclient.Client{BaseURL: f.url, Token: "host-token", State: hostclient.NewMemoryStore(),
		Keys: map[string]ed25519.PublicKey{f.key.ID: f.key.Public()}, Now: func() time.Time { return t0 }}
}

// entry is an approved server version.
func entry(name string) discovery.Entry {
	return discovery.Entry{Name: name, Version: "1.0.0", Latest: true,
		Pins: discovery.Pins{ToolDefinitionHash: "sha256:" + name}}
}

// pages serves names in pages of size, with sequence seq, echoing the query.
func pages(seq int64, size int, names ...string) func(url.Values, int) *discovery.Document {
	return func(q url.Values, _ int) *discovery.Document {
		start := 0
		if tok := q.Get("pageToken"); tok != "" {
			for i, n := range names {
				if n == tok {
					start = i + 1
				}
			}
		}
		end := min(start+size, len(names))
		doc := &discovery.Document{Type: discovery.DocumentType, IssuedAt: t0, ExpiresAt: t0.Add(5 * time.Minute),
			Sequence: seq, Environments: []string{}, TotalSize: len(names), Servers: []discovery.Entry{},
			Query: discovery.Query{Name: q.Get("name"), Version: q.Get("version"), Namespace: q.Get("namespace"),
				Owner: q.Get("owner"), PageSize: size, PageToken: q.Get("pageToken")}}
		for _, n := range names[start:end] {
			doc.Servers = append(doc.Servers, entry(n))
		}
		if end < len(names) {
			doc.NextPageToken = names[end-1]
		}
		return doc
	}
}
