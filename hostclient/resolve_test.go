package hostclient_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/client"
	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/hostclient"
	"github.com/mcpreg/mcpreg/signing"
)

func names(doc *discovery.Document) string {
	var out []string
	for _, e := range doc.Servers {
		out = append(out, e.Name)
	}
	return strings.Join(out, " ")
}

// TestResolveMergesPages: every page is fetched, verified and merged into
// one document, and its sequence is remembered.
func TestResolveMergesPages(t *testing.T) {
	f := newFakeRegistry(t)
	f.page = pages(7, 2, "a/one", "a/three", "a/two", "b/four", "b/five")
	c := f.client()
	doc, err := c.Resolve(context.Background(), hostclient.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(doc); got != "a/one a/three a/two b/four b/five" || doc.TotalSize != 5 || doc.NextPageToken != "" || doc.Sequence != 7 {
		t.Fatalf("merged document: %q total %d next %q seq %d", got, doc.TotalSize, doc.NextPageToken, doc.Sequence)
	}
	if n := f.calls.Load(); n != 3 {
		t.Fatalf("%d requests for 3 pages", n)
	}
	if last, _ := c.State.Last(f.url); last != 7 {
		t.Fatalf("saved sequence %d, want 7", last)
	}
}

// TestResolveFailsClosed: every way a document can be unacceptable is an
// error matching its sentinel, and nothing is saved.
func TestResolveFailsClosed(t *testing.T) {
	other, _ := signing.GenerateKey()
	tests := []struct {
		name  string
		setup func(f *fakeRegistry, c *hostclient.Client)
		want  []error
		says  string
	}{
		{"no keys", func(_ *fakeRegistry, c *hostclient.Client) { c.Keys = nil }, []error{hostclient.ErrNoKeys}, "public key"},
		{"no state", func(_ *fakeRegistry, c *hostclient.Client) { c.State = nil }, []error{hostclient.ErrNoState}, "State"},
		{"another key", func(_ *fakeRegistry, c *hostclient.Client) {
			c.Keys = map[string]ed25519.PublicKey{other.ID: other.Public()}
		}, []error{hostclient.ErrSignature, signing.ErrUnknownKey}, "not a trusted key"},
		{"key id of another key", func(f *fakeRegistry, c *hostclient.Client) {
			c.Keys = map[string]ed25519.PublicKey{f.key.ID: other.Public()}
		}, []error{hostclient.ErrSignature, signing.ErrSignature}, "does not verify"},
		{"tampered payload", func(f *fakeRegistry, _ *hostclient.Client) {
			f.envelope = tamper
		}, []error{hostclient.ErrSignature}, "page 1"},
		{"another payload type", func(f *fakeRegistry, _ *hostclient.Client) {
			f.envelope = func(env []byte) []byte {
				return bytes.Replace(env, []byte(signing.PayloadType), []byte("application/json"), 1)
			}
		}, []error{hostclient.ErrSignature, signing.ErrPayloadType}, "payloadType"},
		{"expired", func(_ *fakeRegistry, c *hostclient.Client) {
			c.Now = func() time.Time { return t0.Add(5 * time.Minute) }
		}, []error{hostclient.ErrExpired}, "expired at 2026-03-01T12:05:00Z"},
		{"issued in the future", func(_ *fakeRegistry, c *hostclient.Client) {
			c.Now = func() time.Time { return t0.Add(-hostclient.MaxClockSkew - time.Second) }
		}, []error{hostclient.ErrNotYetValid}, "check the clocks"},
		{"rolled back", func(f *fakeRegistry, c *hostclient.Client) { _ = c.State.Save(f.url, 8) },
			[]error{hostclient.ErrRollback}, "sequence 7, but sequence 8"},
		{"answer to another query", func(f *fakeRegistry, _ *hostclient.Client) {
			inner := f.page
			f.page = func(q url.Values, n int) *discovery.Document {
				d := inner(q, n)
				d.Query.Name = "a/other"
				return d
			}
		}, []error{hostclient.ErrDocument}, "answers the query"},
		{"short of totalSize", func(f *fakeRegistry, _ *hostclient.Client) {
			inner := f.page
			f.page = func(q url.Values, n int) *discovery.Document { d := inner(q, n); d.TotalSize = 4; return d }
		}, []error{hostclient.ErrDocument}, "totalSize says 4"},
		{"another document type", func(f *fakeRegistry, _ *hostclient.Client) {
			inner := f.page
			f.page = func(q url.Values, n int) *discovery.Document { d := inner(q, n); d.Type = "other"; return d }
		}, []error{hostclient.ErrDocument}, `type "other"`},
		{"always moving", func(f *fakeRegistry, _ *hostclient.Client) {
			f.page = func(q url.Values, n int) *discovery.Document {
				return pages(int64(n), 2, "a/one", "a/two", "a/three")(q, n)
			}
		}, []error{hostclient.ErrDocument}, "changed between pages 3 times"},
		{"token refused", func(_ *fakeRegistry, c *hostclient.Client) { c.Token = "reviewer" },
			[]error{client.ErrUnauthenticated}, "401"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeRegistry(t)
			f.page = pages(7, 2, "a/one", "a/two", "a/three")
			c := f.client()
			tt.setup(f, c)
			before := int64(-1)
			if c.State != nil {
				before, _ = c.State.Last(f.url)
			}
			doc, err := c.Resolve(context.Background(), hostclient.Query{})
			if err == nil {
				t.Fatalf("resolved %q", names(doc))
			}
			for _, want := range tt.want {
				if !errors.Is(err, want) {
					t.Errorf("error %q does not match %q", err, want)
				}
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %q does not say %q", err, tt.says)
			}
			if c.State != nil {
				if after, _ := c.State.Last(f.url); after != before {
					t.Errorf("sequence saved after a failure: %d -> %d", before, after)
				}
			}
		})
	}
}

// tamper flips one bit of the payload, keeping the envelope well-formed.
func tamper(env []byte) []byte {
	i := bytes.Index(env, []byte(`"payload":"`)) + len(`"payload":"`) + 10
	out := bytes.Clone(env)
	if out[i] == 'A' {
		out[i] = 'B'
	} else {
		out[i] = 'A'
	}
	return out
}

// TestResolveAcceptsWithinLimits: a document issued slightly ahead of the
// host's clock, one just before expiry, and one with the same sequence as
// the last accepted all pass; a registry that changed between pages is
// read again from the first page.
func TestResolveAcceptsWithinLimits(t *testing.T) {
	for name, setup := range map[string]func(f *fakeRegistry, c *hostclient.Client){
		"clock skew": func(_ *fakeRegistry, c *hostclient.Client) {
			c.Now = func() time.Time { return t0.Add(-hostclient.MaxClockSkew) }
		},
		"last second": func(_ *fakeRegistry, c *hostclient.Client) {
			c.Now = func() time.Time { return t0.Add(5*time.Minute - time.Second) }
		},
		"same sequence": func(f *fakeRegistry, c *hostclient.Client) { _ = c.State.Save(f.url, 7) },
		"moved once": func(f *fakeRegistry, _ *hostclient.Client) {
			f.page = func(q url.Values, n int) *discovery.Document {
				seq := int64(7)
				if n == 2 {
					seq = 6 // the second request sees another sequence than the first
				}
				return pages(seq, 2, "a/one", "a/two", "a/three")(q, n)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeRegistry(t)
			f.page = pages(7, 2, "a/one", "a/two", "a/three")
			c := f.client()
			setup(f, c)
			doc, err := c.Resolve(context.Background(), hostclient.Query{})
			if err != nil || names(doc) != "a/one a/two a/three" {
				t.Fatalf("%v %+v", err, doc)
			}
		})
	}
}

// TestResolveSendsQuery: filters reach the registry and are checked in the
// answer; "latest" is the registry's "".
func TestResolveSendsQuery(t *testing.T) {
	f := newFakeRegistry(t)
	var seen url.Values
	f.page = func(q url.Values, n int) *discovery.Document {
		seen = q
		d := pages(3, 10, "io.github.acme/weather")(q, n)
		d.Query.Version = ""
		return d
	}
	q := hostclient.Query{Name: "io.github.acme/weather", Version: "latest", Namespace: "io.github.acme", Owner: "acme", PageSize: 10}
	if _, err := f.client().Resolve(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	if seen.Get("name") != q.Name || seen.Get("namespace") != q.Namespace || seen.Get("owner") != q.Owner || seen.Get("pageSize") != "10" {
		t.Fatalf("query sent: %v", seen)
	}
}

func TestResolveUnverified(t *testing.T) {
	f := newFakeRegistry(t)
	f.page = pages(7, 2, "a/one", "a/two", "a/three")
	c := &hostclient.Client{BaseURL: f.url, Token: "host-token"}
	doc, err := c.ResolveUnverified(context.Background(), hostclient.Query{})
	if err != nil || names(doc) != "a/one a/two a/three" {
		t.Fatalf("%v %+v", err, doc)
	}
	if _, err := c.Resolve(context.Background(), hostclient.Query{}); !errors.Is(err, hostclient.ErrNoKeys) {
		t.Fatalf("Resolve without keys: %v", err)
	}
}

func TestFetchKeys(t *testing.T) {
	f := newFakeRegistry(t)
	keys, err := (&hostclient.Client{BaseURL: f.url}).FetchKeys(context.Background())
	if err != nil || len(keys) != 1 || !keys[f.key.ID].Equal(f.key.Public()) {
		t.Fatalf("%v %v", err, keys)
	}
	pemBytes, _ := signing.MarshalPublicKey(f.key.Public())
	trusted, err := hostclient.TrustedKeys(pemBytes)
	if err != nil || !trusted[f.key.ID].Equal(f.key.Public()) {
		t.Fatalf("TrustedKeys: %v %v", err, trusted)
	}
	if _, err := hostclient.TrustedKeys([]byte("not a key")); err == nil {
		t.Fatal("TrustedKeys read garbage")
	}
	if _, err := hostclient.TrustedKeys(); !errors.Is(err, hostclient.ErrNoKeys) {
		t.Fatalf("TrustedKeys of nothing: %v", err)
	}
}

// TestResolveWaitsForLaggingReplica: behind a load balancer a replica may
// answer with an older sequence for a moment after another one changed;
// Resolve asks again and accepts the caught-up answer, while an answer
// that stays older is a rollback after a bounded number of tries.
func TestResolveWaitsForLaggingReplica(t *testing.T) {
	f := newFakeRegistry(t)
	f.page = func(q url.Values, n int) *discovery.Document {
		if n <= 4 { // two resolves of two pages from the lagging replica
			return pages(7, 2, "a/one", "a/two", "a/three")(q, n)
		}
		return pages(9, 2, "a/one", "a/two", "a/three")(q, n)
	}
	c := f.client()
	_ = c.State.Save(f.url, 8)
	doc, err := c.Resolve(context.Background(), hostclient.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if last, _ := c.State.Last(f.url); doc.Sequence != 9 || last != 9 || f.calls.Load() != 6 {
		t.Fatalf("sequence %d, saved %d after %d requests; want 9, 9 after 6", doc.Sequence, last, f.calls.Load())
	}

	f.page = pages(7, 2, "a/one", "a/two", "a/three")
	f.calls.Store(0)
	_, err = c.Resolve(context.Background(), hostclient.Query{})
	if !errors.Is(err, hostclient.ErrRollback) || f.calls.Load() != 8 {
		t.Fatalf("an answer that stays older: %v after %d requests; want a rollback after 4 tries (8 requests)", err, f.calls.Load())
	}
}
