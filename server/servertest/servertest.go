// Package servertest starts a real mcpreg service in-process for tests: a
// real database (SQLite file or PostgreSQL), real listeners on loopback, the
// real gRPC server and REST gateway.
package servertest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/registry"
	"github.com/mcpreg/mcpreg/server"
	"github.com/mcpreg/mcpreg/store"
	"github.com/mcpreg/mcpreg/storetest"
)

// Instance is a running service.
type Instance struct {
	URL      string // http://127.0.0.1:PORT
	GRPCAddr string
	Metrics  string
	Store    *store.Store
	Service  *registry.Service
}

// Start runs the service on a fresh database of the dialect until the test
// ends.
func Start(t testing.TB, dialect string, mutate ...func(*server.Config)) *Instance {
	t.Helper()
	st := storetest.Open(t, dialect)
	return StartOn(t, st, mutate...)
}

// StartOn runs the service over an existing store.
func StartOn(t testing.TB, st *store.Store, mutate ...func(*server.Config)) *Instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := registry.New(ctx, st, registry.WithLogger(log))
	if err != nil {
		t.Fatalf("registry: %v", err)
	}
	cfg := server.DefaultConfig()
	cfg.HTTPAddr, cfg.GRPCAddr, cfg.MetricsAddr = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
	cfg.ShutdownTimeout = 5 * time.Second
	for _, m := range mutate {
		m(&cfg)
	}
	l, err := server.Listen(cfg)
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx, cfg, l, st, svc, log) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("server stopped with error: %v", err)
		}
	})
	in := &Instance{URL: "http://" + l.HTTP.Addr().String(), GRPCAddr: l.GRPC.Addr().String(),
		Metrics: "http://" + l.Metrics.Addr().String(), Store: st, Service: svc}
	waitHealthy(t, in.URL)
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
	issued, err := in.Service.CreateToken(context.Background(), &registry.Caller{Principal: "test-bootstrap", Role: registry.RoleAdmin},
		registry.NewToken{Principal: principal, Role: role, Namespaces: namespaces})
	if err != nil {
		t.Fatalf("token for %s: %v", principal, err)
	}
	return issued.Secret
}
