package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// tokenServer adapts token management to the TokenService API.
type tokenServer struct {
	mcpregv1.UnimplementedTokenServiceServer
	svc *identity.Service
	log *slog.Logger
}

func (s *tokenServer) CreateToken(ctx context.Context, r *mcpregv1.CreateTokenRequest) (*mcpregv1.CreateTokenResponse, error) {
	req := identity.NewToken{Principal: r.GetPrincipal(), Role: registry.Role(r.GetRole()), Namespaces: r.GetNamespaces(),
		EnvLabels: r.GetEnvLabels(), Name: r.GetName(), TTL: time.Duration(r.GetTtlSeconds()) * time.Second}
	issued, err := s.svc.CreateToken(ctx, registry.CallerFrom(ctx), req)
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.CreateTokenResponse{Token: issued.Token, Secret: issued.Secret}, nil
}

func (s *tokenServer) ListTokens(ctx context.Context, r *mcpregv1.ListTokensRequest) (*mcpregv1.ListTokensResponse, error) {
	ts, err := s.svc.ListTokens(ctx, registry.CallerFrom(ctx), r.GetPrincipal())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ListTokensResponse{Tokens: ts}, nil
}

func (s *tokenServer) RevokeToken(ctx context.Context, r *mcpregv1.RevokeTokenRequest) (*mcpregv1.Token, error) {
	t, err := s.svc.RevokeToken(ctx, registry.CallerFrom(ctx), r.GetId(), r.GetReason())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return t, nil
}
