package server

import (
	"log/slog"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// newGRPCServer builds the gRPC server with its interceptor chain: request
// id, logging, metrics, authentication and authorisation, refusing NUL
// characters in text, recovery last.
//
// The public server (tap true) authenticates every call in a tap handle,
// before its message is read and decoded. The gateway's in-process server
// does not: the REST port gates bodies itself (gateBody), and a slow token
// lookup in its tap would hold up every REST call sharing that connection.
func newGRPCServer(svcs *Services, log *slog.Logger, m *metrics, maxMsg int, creds credentials.TransportCredentials, tap bool) (*grpc.Server, *health.Server) {
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(maxMsg),
		grpc.ConnectionTimeout(10 * time.Second),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: 5 * time.Minute}),
		grpc.ChainUnaryInterceptor(
			requestIDInterceptor,
			loggingInterceptor(log),
			m.grpc.UnaryServerInterceptor(),
			authInterceptor(svcs.Identity, log),
			nulTextInterceptor,
			recoveryInterceptor(log),
		),
		grpc.ChainStreamInterceptor(m.grpc.StreamServerInterceptor()),
	}
	if creds != nil {
		opts = append(opts, grpc.Creds(creds))
	}
	if tap {
		opts = append(opts, grpc.InTapHandle(authTap(svcs.Identity, log)))
	}
	gs := grpc.NewServer(opts...)
	mcpregv1.RegisterRegistryServiceServer(gs, &registryServer{svc: svcs.Registry, log: log})
	mcpregv1.RegisterTokenServiceServer(gs, &tokenServer{svc: svcs.Identity, log: log})
	mcpregv1.RegisterDiscoveryServiceServer(gs, &discoveryServer{svc: svcs.Registry.Discovery, scans: svcs.Registry.Scans, receipts: svcs.Registry.Receipts, log: log})
	hs := health.NewServer()
	healthpb.RegisterHealthServer(gs, hs)
	m.grpc.InitializeMetrics(gs)
	return gs, hs
}
