package server

import (
	"context"
	"time"

	"github.com/mcpreg/mcpreg/internal/registry"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func (s *registryServer) AddUpstream(ctx context.Context, r *mcpregv1.AddUpstreamRequest) (*mcpregv1.Upstream, error) {
	in := registry.UpstreamInput{Name: r.GetName(), URL: r.GetUrl(), Namespaces: r.GetNamespaces(), Token: r.GetToken(),
		Allow: r.GetAllow(), Tools: r.GetTools()}
	if r.IntervalSeconds != nil {
		if r.GetIntervalSeconds() < 0 || r.GetIntervalSeconds() > int64(30*24*time.Hour/time.Second) {
			return nil, toStatus(ctx, s.log, registry.ErrInvalid)
		}
		d := time.Duration(r.GetIntervalSeconds()) * time.Second
		in.Interval = &d
	}
	out, err := s.svc.Upstreams.AddUpstream(ctx, s.caller(ctx), in)
	return out, toStatus(ctx, s.log, err)
}

func (s *registryServer) ListUpstreams(ctx context.Context, _ *mcpregv1.ListUpstreamsRequest) (*mcpregv1.ListUpstreamsResponse, error) {
	out, err := s.svc.Upstreams.ListUpstreams(ctx, s.caller(ctx))
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ListUpstreamsResponse{Upstreams: out}, nil
}

func (s *registryServer) RemoveUpstream(ctx context.Context, r *mcpregv1.RemoveUpstreamRequest) (*mcpregv1.Upstream, error) {
	out, err := s.svc.Upstreams.RemoveUpstream(ctx, s.caller(ctx), r.GetName())
	return out, toStatus(ctx, s.log, err)
}

func (s *registryServer) SyncUpstream(ctx context.Context, r *mcpregv1.SyncUpstreamRequest) (*mcpregv1.UpstreamSyncResult, error) {
	if !r.GetWait() {
		up, err := s.svc.Upstreams.StartSync(ctx, s.caller(ctx), r.GetName())
		if err != nil {
			return nil, toStatus(ctx, s.log, err)
		}
		return &mcpregv1.UpstreamSyncResult{Upstream: up, Running: true}, nil
	}
	res, err := s.svc.Upstreams.SyncUpstream(ctx, s.caller(ctx), r.GetName())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return SyncResultProto(res), nil
}

// SyncResultProto is the API form of a pass's result.
func SyncResultProto(res *registry.SyncResult) *mcpregv1.UpstreamSyncResult {
	out := &mcpregv1.UpstreamSyncResult{Upstream: res.Upstream, Counts: map[string]int64{}, Errors: res.Errors, Error: res.Stopped}
	for k, v := range res.Counts {
		out.Counts[k] = int64(v)
	}
	return out
}

func (s *registryServer) SetVersionStatus(ctx context.Context, r *mcpregv1.SetVersionStatusRequest) (*mcpregv1.SetVersionStatusResponse, error) {
	ver := r.GetVersion()
	switch ver {
	case "-":
		ver = ""
	case "":
		return nil, toStatus(ctx, s.log, registry.ErrInvalid)
	}
	out, err := s.svc.Review.SetStatus(ctx, s.caller(ctx), r.GetName(), ver, r.GetStatus(), r.GetMessage())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.SetVersionStatusResponse{Versions: out}, nil
}
