// Package servertest starts a real mcpreg service in-process for tests: a
// real database (SQLite file or PostgreSQL), real listeners on loopback, the
// real gRPC server and REST gateway.
package servertest

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/daemon"
	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/wiring"
)

// Instance is a running service.
type Instance struct {
	URL      string // http://127.0.0.1:PORT
	GRPCAddr string
	Metrics  string
	Store    *store.Store
	Service  *registry.Services
	Identity *identity.Service
	// Logs holds everything the service logged, at debug level.
	Logs *SyncBuffer
	// HTTPRead and GRPCRead count the bytes the service read from its
	// HTTP and gRPC connections.
	HTTPRead, GRPCRead *atomic.Int64
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers.
type SyncBuffer = daemon.Buffer

// Start runs the service on a fresh database of the dialect until the test
// ends.
func Start(t testing.TB, dialect string, mutate ...func(*config.Config)) *Instance {
	t.Helper()
	st := storetest.Open(t, dialect)
	return StartOn(t, st, mutate...)
}

// StartOn runs the service over an existing store.
func StartOn(t testing.TB, st *store.Store, mutate ...func(*config.Config)) *Instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &SyncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := config.DefaultConfig()
	cfg.HTTPAddr, cfg.GRPCAddr, cfg.MetricsAddr = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
	// net/http's Shutdown counts a connection that never carried a
	// request (one a client dialed for a burst and did not use) as busy
	// for 5 s: a shorter timeout fails the shutdown of a test that sent
	// concurrent requests (TestScanRequestsAreMerged, now and then).
	cfg.ShutdownTimeout = 10 * time.Second
	cfg.ScanInterval = 0 // tests scan on demand
	cfg.ScanAllowHosts = []string{"127.0.0.1/32"}
	cfg.ScanDeadline = 20 * time.Second
	cfg.ScanCooldown = 0
	cfg.ScanRate, cfg.ScanOnDemandConcurrency = "off", 64 // tests that want these limits set them
	for _, m := range mutate {
		m(&cfg)
	}
	if cfg.ScanNPMDir == "" {
		cfg.ScanNPMDir = ScanUserDir(t)
	}
	if cfg.SecretsKey == config.DefaultConfig().SecretsKey {
		cfg.SecretsKey = filepath.Join(t.TempDir(), "secrets.key")
	}
	if cfg.DiscoveryKey == config.DefaultConfig().DiscoveryKey {
		cfg.DiscoveryKey = filepath.Join(t.TempDir(), "discovery.key")
	}
	opts, err := wiring.ServiceOptions(cfg, log)
	if err != nil {
		t.Fatalf("configuration: %v", err)
	}
	svcs, err := wiring.NewServices(ctx, st, log, opts...)
	if err != nil {
		t.Fatalf("services: %v", err)
	}
	l, err := server.Listen(cfg)
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	httpRead, grpcRead := &atomic.Int64{}, &atomic.Int64{}
	l.HTTP, l.GRPC = countingListener{l.HTTP, httpRead}, countingListener{l.GRPC, grpcRead}
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx, cfg, l, st, svcs, log) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("server stopped with error: %v", err)
		}
	})
	in := &Instance{URL: "http://" + l.HTTP.Addr().String(), GRPCAddr: l.GRPC.Addr().String(),
		Metrics: "http://" + l.Metrics.Addr().String(), Store: st, Service: svcs.Registry, Identity: svcs.Identity, Logs: logs,
		HTTPRead: httpRead, GRPCRead: grpcRead}
	if cfg.TLSCert == "" {
		waitHealthy(t, in.URL)
	} else {
		in.URL = "https://" + l.HTTP.Addr().String()
	}
	return in
}

func waitHealthy(t testing.TB, base string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("service at %s never became healthy", base)
}

// Token creates a principal (if new) with the role and returns a token.
func (in *Instance) Token(t testing.TB, principal string, role registry.Role, namespaces ...string) string {
	t.Helper()
	issued, err := in.Identity.CreateToken(context.Background(), &registry.Caller{Principal: "test-bootstrap", Role: registry.RoleAdmin},
		identity.NewToken{Principal: principal, Role: role, Namespaces: namespaces})
	if err != nil {
		t.Fatalf("token for %s: %v", principal, err)
	}
	return issued.Secret
}

// HostToken creates a host principal with environment labels and returns
// a token.
func (in *Instance) HostToken(t testing.TB, principal string, labels ...string) string {
	t.Helper()
	issued, err := in.Identity.CreateToken(context.Background(), &registry.Caller{Principal: "test-bootstrap", Role: registry.RoleAdmin},
		identity.NewToken{Principal: principal, Role: registry.RoleHost, EnvLabels: labels})
	if err != nil {
		t.Fatalf("host token for %s: %v", principal, err)
	}
	return issued.Secret
}

// ScanUserDir is a temporary folder the scan user can reach (when tests
// run as root, stdio servers run as nobody).
func ScanUserDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// countingListener counts the bytes read from the connections it accepts.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.n}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}
