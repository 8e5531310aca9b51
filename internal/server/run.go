package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/test/bufconn"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/web"
	"github.com/mcpreg/mcpreg/signing"
)

// Listeners are the bound sockets of a running service (useful to tests that
// bind port 0).
type Listeners struct {
	HTTP, GRPC, Metrics net.Listener
}

// Listen binds the configured addresses.
func Listen(cfg config.Config) (*Listeners, error) {
	var l Listeners
	var err error
	if l.HTTP, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
		return nil, fmt.Errorf("http listener: %w", err)
	}
	if l.GRPC, err = net.Listen("tcp", cfg.GRPCAddr); err != nil {
		l.HTTP.Close()
		return nil, fmt.Errorf("grpc listener: %w", err)
	}
	if l.Metrics, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
		l.HTTP.Close()
		l.GRPC.Close()
		return nil, fmt.Errorf("metrics listener: %w", err)
	}
	return &l, nil
}

// Run serves until ctx ends, then stops gracefully within the configured
// deadline. It owns neither the store nor the service.
func Run(ctx context.Context, cfg config.Config, l *Listeners, db Database, svcs *Services, log *slog.Logger) error {
	svc := svcs.Registry
	tlsCfg, err := loadTLS(cfg)
	if err != nil {
		return err
	}
	m := newMetrics()
	m.reg.MustRegister(svc.Scans.Collectors()...)
	m.reg.MustRegister(svcs.Identity.Collectors()...)
	m.reg.MustRegister(sandboxGauge(svc.Scans.ScanSandboxMode()))
	warnSandbox(log, svc.Scans)
	warnDriftPolicy(log, svc.Scans)
	var creds credentials.TransportCredentials
	if tlsCfg != nil {
		creds = credentials.NewTLS(tlsCfg)
	}
	gs, hs := newGRPCServer(svcs, log, m, int(cfg.MaxBodyBytes), creds, true)
	internal := bufconn.Listen(1 << 20)
	gwServer, _ := newGRPCServer(svcs, log, m, int(cfg.MaxBodyBytes), nil, false)
	conn, err := grpc.NewClient("passthrough:///internal",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return internal.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(int(cfg.MaxBodyBytes))))
	if err != nil {
		return fmt.Errorf("gateway connection: %w", err)
	}
	defer func() { _ = conn.Close() }()
	gw, err := newGateway(ctx, conn)
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	var draining atomic.Bool
	proxies, err := config.ParseTrustedProxies(cfg.TrustedProxies)
	if err != nil {
		return err
	}
	opt := web.Options{Secure: tlsCfg != nil || cfg.SecureCookies, TrustedProxies: proxies}
	if notice := sandboxNotice(svc.Scans); notice != "" {
		opt.AdminNotices = append(opt.AdminNotices, notice)
	}
	if cfg.OIDCIssuer != "" {
		opt.OIDC = &web.OIDCConfig{Issuer: cfg.OIDCIssuer, ClientID: cfg.OIDCClientID, ClientSecret: cfg.OIDCClientSecret,
			RedirectURL: cfg.OIDCRedirectURL, PrincipalClaim: cfg.OIDCPrincipalClaim}
		if opt.FlowSecret, err = ssoFlowSecret(cfg); err != nil {
			return err
		}
	}
	ui, err := web.New(svc, svcs.Identity, log, opt)
	if err != nil {
		return err
	}
	httpSrv := newHTTPServer(httpHandler(gw, db, &draining, cfg.MaxBodyBytes, m, svcs, log, OfficialAccess{Public: cfg.PublicReadAPI, CORSOrigins: cfg.CORSOrigins}, ui), tlsCfg, log)
	metricsSrv := newHTTPServer(m.handler(), nil, log)

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return serveGRPC(gs, l.GRPC) })
	g.Go(func() error { return serveGRPC(gwServer, internal) })
	g.Go(func() error { return serveHTTP(httpSrv, l.HTTP, tlsCfg != nil) })
	g.Go(func() error { return serveHTTP(metricsSrv, l.Metrics, false) })
	g.Go(func() error { return svc.Scans.RunScheduler(gctx) })
	g.Go(func() error {
		// Build the discovery and shadowing indexes in the background, so
		// the first resolve or submission does not wait for them.
		if err := svc.Discovery.Warm(gctx); err != nil && gctx.Err() == nil {
			log.WarnContext(gctx, "discovery index", "err", err)
		}
		return nil
	})
	g.Go(func() error { return svc.Upstreams.RunUpstreamSchedule(gctx, time.Minute) })
	g.Go(func() error { return svc.Audit.WatchChanges(gctx, registry.DefaultChangePoll) })
	g.Go(func() error { return svc.Audit.RunCheckpoints(gctx) })
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	log.Info("mcpregd serving", "http", l.HTTP.Addr().String(), "grpc", l.GRPC.Addr().String(),
		"metrics", l.Metrics.Addr().String(), "db", db.DialectName(), "tls", tlsCfg != nil)
	g.Go(func() error {
		<-gctx.Done()
		draining.Store(true)
		hs.Shutdown()
		if cfg.DrainDelay > 0 {
			log.Info("draining: not ready, still serving", "for", cfg.DrainDelay.String())
			time.Sleep(cfg.DrainDelay)
		}
		return shutdown(cfg.ShutdownTimeout, log, httpSrv, metricsSrv, gs, gwServer)
	})
	return g.Wait()
}

func serveGRPC(gs *grpc.Server, l net.Listener) error {
	if err := gs.Serve(l); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return fmt.Errorf("grpc serve: %w", err)
	}
	return nil
}

func serveHTTP(s *http.Server, l net.Listener, useTLS bool) error {
	var err error
	if useTLS {
		err = s.ServeTLS(l, "", "")
	} else {
		err = s.Serve(l)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("http serve: %w", err)
	}
	return nil
}

func newHTTPServer(h http.Handler, tlsCfg *tls.Config, log *slog.Logger) *http.Server {
	return &http.Server{
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		Handler:           h,
		TLSConfig:         tlsCfg,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

// shutdown drains HTTP first (its requests still need gRPC), then gRPC.
func shutdown(timeout time.Duration, log *slog.Logger, httpSrv, metricsSrv *http.Server, grpcServers ...*grpc.Server) error {
	log.Info("shutting down", "deadline", timeout.String())
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := errors.Join(httpSrv.Shutdown(ctx), metricsSrv.Shutdown(ctx))
	for _, gs := range grpcServers {
		stopGRPC(ctx, gs)
	}
	return err
}

func stopGRPC(ctx context.Context, gs *grpc.Server) {
	done := make(chan struct{})
	go func() { gs.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		gs.Stop()
	}
}

func loadTLS(cfg config.Config) (*tls.Config, error) {
	if cfg.TLSCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// ssoFlowSecret is the secret every replica already shares, from which the
// web UI derives its single sign-on flow key under its own HKDF label: the
// seed of the discovery signing key (DiscoverySignerFrom made the file).
func ssoFlowSecret(cfg config.Config) ([]byte, error) {
	key, err := signing.LoadKeyFile(cfg.DiscoveryKey)
	if err != nil {
		return nil, fmt.Errorf("--discovery-key (single sign-on flow key): %w", err)
	}
	return key.Private.Seed(), nil
}
