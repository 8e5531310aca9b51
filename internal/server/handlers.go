package server

import (
	"context"
	"log/slog"

	"google.golang.org/grpc/metadata"

	"github.com/mcpreg/mcpreg/internal/registry"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// HeaderIdempotencyKey is the HTTP header (and gRPC metadata key) that may
// carry a submission's idempotency key.
const HeaderIdempotencyKey = "idempotency-key"

// registryServer adapts the registry services to the RegistryService API.
type registryServer struct {
	mcpregv1.UnimplementedRegistryServiceServer
	svc *registry.Services
	log *slog.Logger
}

func (s *registryServer) caller(ctx context.Context) *registry.Caller {
	return registry.CallerFrom(ctx)
}

func (s *registryServer) SubmitVersion(ctx context.Context, r *mcpregv1.SubmitVersionRequest) (*mcpregv1.Version, error) {
	key := r.GetIdempotencyKey()
	if key == "" {
		key = firstMetadata(ctx, HeaderIdempotencyKey)
	}
	v, err := s.svc.Review.Submit(ctx, s.caller(ctx), registry.Submission{ServerJSON: []byte(r.GetServerJson()),
		Tools: []byte(r.GetTools()), InitializeResult: []byte(r.GetInitializeResult()), Contract: []byte(r.GetContract()),
		IdempotencyKey: key, Live: r.GetLive(), Attestations: attestationInputs(r.GetAttestations())})
	return v, toStatus(ctx, s.log, err)
}

func firstMetadata(ctx context.Context, key string) string {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (s *registryServer) ListServers(ctx context.Context, r *mcpregv1.ListServersRequest) (*mcpregv1.ListServersResponse, error) {
	f := registry.ServerFilter{State: r.GetState(), Owner: r.GetOwner(), Namespace: r.GetNamespace(), Query: r.GetQuery()}
	servers, next, err := s.svc.Review.ListServers(ctx, s.caller(ctx), f, registry.Page{Size: r.GetPageSize(), Token: r.GetPageToken()})
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ListServersResponse{Servers: servers, NextPageToken: next}, nil
}

func (s *registryServer) GetServer(ctx context.Context, r *mcpregv1.GetServerRequest) (*mcpregv1.Server, error) {
	srv, err := s.svc.Review.GetServer(ctx, s.caller(ctx), r.GetName())
	return srv, toStatus(ctx, s.log, err)
}

func (s *registryServer) ListVersions(ctx context.Context, r *mcpregv1.ListVersionsRequest) (*mcpregv1.ListVersionsResponse, error) {
	f := registry.ServerFilter{State: r.GetState(), Owner: r.GetOwner(), Namespace: r.GetNamespace(), Query: r.GetQuery()}
	vs, next, err := s.svc.Review.ListVersions(ctx, s.caller(ctx), r.GetName(), f, registry.Page{Size: r.GetPageSize(), Token: r.GetPageToken()})
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ListVersionsResponse{Versions: vs, NextPageToken: next}, nil
}

func (s *registryServer) GetVersion(ctx context.Context, r *mcpregv1.GetVersionRequest) (*mcpregv1.Version, error) {
	v, err := s.svc.Review.GetVersion(ctx, s.caller(ctx), r.GetName(), r.GetVersion())
	return v, toStatus(ctx, s.log, err)
}

func (s *registryServer) CompareVersions(ctx context.Context, r *mcpregv1.CompareVersionsRequest) (*mcpregv1.VersionComparison, error) {
	c, err := s.svc.Review.CompareVersions(ctx, s.caller(ctx), r.GetName(), r.GetVersion(), r.GetBase())
	return c, toStatus(ctx, s.log, err)
}

func (s *registryServer) transition(ctx context.Context, a registry.Action, r *mcpregv1.TransitionRequest) (*mcpregv1.Version, error) {
	v, err := s.svc.Review.Transition(ctx, s.caller(ctx), a, r.GetName(), r.GetVersion(), r.GetReason(), r.GetAcknowledgedWidenings()...)
	return v, toStatus(ctx, s.log, err)
}

func (s *registryServer) ApproveVersion(ctx context.Context, r *mcpregv1.TransitionRequest) (*mcpregv1.Version, error) {
	return s.transition(ctx, registry.ActionApprove, r)
}

func (s *registryServer) RejectVersion(ctx context.Context, r *mcpregv1.TransitionRequest) (*mcpregv1.Version, error) {
	return s.transition(ctx, registry.ActionReject, r)
}

func (s *registryServer) QuarantineVersion(ctx context.Context, r *mcpregv1.TransitionRequest) (*mcpregv1.Version, error) {
	return s.transition(ctx, registry.ActionQuarantine, r)
}

func (s *registryServer) ReleaseVersion(ctx context.Context, r *mcpregv1.TransitionRequest) (*mcpregv1.Version, error) {
	return s.transition(ctx, registry.ActionRelease, r)
}

func (s *registryServer) RevokeVersion(ctx context.Context, r *mcpregv1.TransitionRequest) (*mcpregv1.Version, error) {
	return s.transition(ctx, registry.ActionRevoke, r)
}

func (s *registryServer) ListAuditEvents(ctx context.Context, r *mcpregv1.ListAuditEventsRequest) (*mcpregv1.ListAuditEventsResponse, error) {
	f := registry.AuditFilter{Subject: r.GetSubject(), Actor: r.GetActor(), Action: r.GetAction()}
	evs, next, err := s.svc.Audit.ListAuditEvents(ctx, f, registry.Page{Size: r.GetPageSize(), Token: r.GetPageToken()})
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ListAuditEventsResponse{Events: evs, NextPageToken: next}, nil
}

func (s *registryServer) VerifyAuditChain(ctx context.Context, _ *mcpregv1.VerifyAuditChainRequest) (*mcpregv1.VerifyAuditChainResponse, error) {
	rep, err := s.svc.Audit.VerifyAuditChain(ctx)
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.VerifyAuditChainResponse{Ok: rep.OK, Events: rep.Events, HeadHash: rep.HeadHash,
		FirstBrokenSeq: rep.FirstBrokenSeq, Problem: rep.Problem}, nil
}

func (s *registryServer) ListAuditCheckpoints(ctx context.Context, r *mcpregv1.ListAuditCheckpointsRequest) (*mcpregv1.ListAuditCheckpointsResponse, error) {
	cps, next, err := s.svc.Audit.ListCheckpoints(ctx, registry.Page{Size: r.GetPageSize(), Token: r.GetPageToken()})
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ListAuditCheckpointsResponse{Checkpoints: cps, NextPageToken: next}, nil
}

func (s *registryServer) GetServerPolicy(ctx context.Context, r *mcpregv1.GetServerPolicyRequest) (*mcpregv1.ServerPolicy, error) {
	p, err := s.svc.Review.GetPolicy(ctx, s.caller(ctx), r.GetName())
	return p, toStatus(ctx, s.log, err)
}

func (s *registryServer) UpdateServerPolicy(ctx context.Context, r *mcpregv1.UpdateServerPolicyRequest) (*mcpregv1.ServerPolicy, error) {
	p := registry.Policy{RequireContract: r.GetPolicy().GetRequireContract(),
		Attestation: registry.AttestPolicyFromProto(r.GetPolicy().GetAttestation())}
	out, err := s.svc.Review.SetPolicy(ctx, s.caller(ctx), r.GetName(), p, r.GetReason())
	return out, toStatus(ctx, s.log, err)
}

func (s *registryServer) ConfirmServerPolicy(ctx context.Context, r *mcpregv1.ConfirmServerPolicyRequest) (*mcpregv1.ServerPolicy, error) {
	out, err := s.svc.Review.ConfirmPolicy(ctx, s.caller(ctx), r.GetName(), r.GetDigest(), r.GetReason())
	return out, toStatus(ctx, s.log, err)
}

func (s *registryServer) WhoAmI(ctx context.Context, _ *mcpregv1.WhoAmIRequest) (*mcpregv1.Principal, error) {
	return registry.PrincipalProto(s.caller(ctx)), nil
}
