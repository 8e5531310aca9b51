package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/web"
	"github.com/mcpreg/mcpreg/signing"
)

// balancer stands for a load balancer in front of replicas: it sends the
// provider's callback to one replica and every other request to another,
// the worst case for a sign-in that keeps its state in a cookie.
type balancer struct {
	first    http.Handler
	callback atomic.Pointer[http.Handler]
	srv      *httptest.Server
}

// newBalancer binds a loopback port (the redirect URL must be known before
// the replicas start); start serves on it.
func newBalancer(t testing.TB) *balancer {
	t.Helper()
	lb := &balancer{srv: httptest.NewUnstartedServer(nil)}
	lb.srv.Config.Handler = lb
	t.Cleanup(lb.srv.Close)
	return lb
}

func (lb *balancer) redirectURL() string {
	return "http://" + lb.srv.Listener.Addr().String() + "/signin/sso/callback"
}

func (lb *balancer) start(first, callback http.Handler) {
	lb.first = first
	lb.route(callback)
	lb.srv.Start()
}

// route sends the callback to h from now on.
func (lb *balancer) route(h http.Handler) { lb.callback.Store(&h) }

func (lb *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/signin/sso/callback" {
		(*lb.callback.Load()).ServeHTTP(w, r)
		return
	}
	lb.first.ServeHTTP(w, r)
}

// browserVia is a browser whose requests go through lb.
func browserVia(t testing.TB, lb *balancer, in *servertest.Instance) *browser {
	t.Helper()
	e := &env{users: map[string]bool{}, svc: in.Service, id: in.Identity, st: in.Store, h: lb, srv: lb.srv}
	return e.browser(t)
}

// ssoAcrossReplicas starts the flow on one replica and sends the
// provider's callback to another. With the same flow secret the sign-in
// completes, and the session (in the database) is good on the first
// replica; otherwise the callback refuses it as a flow from elsewhere.
func ssoAcrossReplicas(t *testing.T, b *browser, same bool) {
	t.Helper()
	r := b.ssoSignIn("/servers?q=x", nil)
	if !same {
		if r.Status != http.StatusBadRequest {
			t.Fatalf("callback on a replica with another key: %d, want 400\n%s", r.Status, r.Body)
		}
		mustContain(t, r.Body, "did not start in this browser")
		assertSignedOut(t, b, r)
		return
	}
	if r.Status != http.StatusSeeOther || r.Location != "/servers?q=x" {
		t.Fatalf("callback on the other replica: %d to %q, want 303 to the next page\n%s", r.Status, r.Location, r.Body)
	}
	mustContain(t, b.get("/queue").Body, "Signed in as <strong>rev@example.com</strong>")
}

// TestSingleSignOnAcrossReplicas: two web handlers over one registry, as
// two replicas behind a load balancer. A flow started on one finishes on
// the other when both have the same FlowSecret; with different secrets,
// or none (a random key per process), the callback is refused.
func TestSingleSignOnAcrossReplicas(t *testing.T) {
	t.Parallel()
	in := servertest.Start(t, "sqlite3")
	in.Token(t, "rev@example.com", registry.RoleReviewer)
	idp := newFakeIDP(t, nil)
	secret, other := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	cases := []struct {
		name   string
		a, b   []byte
		signIn bool
	}{
		{"same secret", secret, bytes.Clone(secret), true},
		{"different secrets", secret, other, false},
		{"no secret", nil, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			lb := newBalancer(t)
			replica := func(secret []byte) http.Handler {
				h, err := web.New(in.Service, in.Identity, slog.New(slog.DiscardHandler),
					web.Options{OIDC: ssoConfig(idp, lb.redirectURL(), ""), FlowSecret: secret})
				if err != nil {
					t.Fatal(err)
				}
				return h
			}
			lb.start(replica(c.a), replica(c.b))
			ssoAcrossReplicas(t, browserVia(t, lb, in), c.signIn)
		})
	}
}

// TestSingleSignOnAcrossMcpregdReplicas: mcpregd derives the flow key from
// the discovery signing key, which replicas share. Three services on one
// database of each dialect, all with single sign-on through one provider
// and one redirect URL: a flow started on the first finishes on a second
// with the same --discovery-key file, and is refused on a third with
// another. No replica logs the key.
func TestSingleSignOnAcrossMcpregdReplicas(t *testing.T) {
	t.Parallel()
	for _, dialect := range storetest.Dialects(t) {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			dsn := storetest.DSN(t, dialect)
			idp := newFakeIDP(t, nil)
			lb := newBalancer(t)
			dir := t.TempDir()
			shared, other := filepath.Join(dir, "shared.key"), filepath.Join(dir, "other.key")
			replica := func(key string) *servertest.Instance { return startReplica(t, dialect, dsn, key, idp, lb) }
			first := replica(shared)
			same, another := replica(shared), replica(other)
			first.Token(t, "rev@example.com", registry.RoleReviewer)
			lb.start(proxyTo(first), proxyTo(same))
			t.Run("same discovery key", func(t *testing.T) { ssoAcrossReplicas(t, browserVia(t, lb, first), true) })
			lb.route(proxyTo(another))
			t.Run("another discovery key", func(t *testing.T) { ssoAcrossReplicas(t, browserVia(t, lb, first), false) })
			for _, in := range []*servertest.Instance{first, same, another} {
				for _, key := range []string{shared, other} {
					assertKeyNotLogged(t, in.Logs.String(), key)
				}
			}
		})
	}
}

// startReplica runs a service on its own connections to the database dsn,
// with single sign-on through idp behind lb and the discovery key file
// key (created by the first replica that uses it).
func startReplica(t *testing.T, dialect, dsn, key string, idp *fakeIDP, lb *balancer) *servertest.Instance {
	t.Helper()
	var opts []store.Option
	if dialect == store.DialectPostgres {
		opts = append(opts, store.WithMaxIdleConns(2))
	}
	st, err := store.Open(context.Background(), dsn, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() }) // after the service stops
	return servertest.StartOn(t, st, func(c *config.Config) {
		c.DiscoveryKey = key
		c.OIDCIssuer, c.OIDCClientID, c.OIDCClientSecret = idp.URL, idp.clientID, idp.secret
		c.OIDCRedirectURL = lb.redirectURL()
	})
}

func proxyTo(in *servertest.Instance) http.Handler {
	return httputil.NewSingleHostReverseProxy(mustURL(in.URL))
}

// assertKeyNotLogged: the private key of the file, as its seed (hex or
// base64) or its PEM body, is nowhere in logs.
func assertKeyNotLogged(t *testing.T, logs, file string) {
	t.Helper()
	k, err := signing.LoadKeyFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pemBytes, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pemBytes)
	seed := k.Private.Seed()
	for _, enc := range []string{hex.EncodeToString(seed), base64.StdEncoding.EncodeToString(seed),
		base64.RawURLEncoding.EncodeToString(seed), base64.StdEncoding.EncodeToString(block.Bytes)} {
		if strings.Contains(logs, enc) {
			t.Errorf("a replica logged the discovery key of %s", file)
		}
	}
}
