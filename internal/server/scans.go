package server

import (
	"context"
	"math"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/states"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func (s *registryServer) ScanVersion(ctx context.Context, r *mcpregv1.ScanVersionRequest) (*mcpregv1.ScanResult, error) {
	res, err := s.svc.Scans.ScanVersion(ctx, s.caller(ctx), r.GetName(), r.GetVersion(), states.TriggerManual, registry.Fresh(r.GetFresh()))
	return res, toStatus(ctx, s.log, err)
}

func (s *registryServer) ListScans(ctx context.Context, r *mcpregv1.ListScansRequest) (*mcpregv1.ListScansResponse, error) {
	scans, next, err := s.svc.Scans.ListScans(ctx, s.caller(ctx), r.GetName(), r.GetVersion(), registry.Page{Size: r.GetPageSize(), Token: r.GetPageToken()})
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ListScansResponse{Scans: scans, NextPageToken: next}, nil
}

func (s *registryServer) ListDriftEvents(ctx context.Context, r *mcpregv1.ListDriftEventsRequest) (*mcpregv1.ListDriftEventsResponse, error) {
	f := registry.DriftFilter{Name: r.GetName(), Version: r.GetVersion(), Status: states.DriftStatus(r.GetStatus())}
	evs, next, err := s.svc.Scans.ListDriftEvents(ctx, s.caller(ctx), f, registry.Page{Size: r.GetPageSize(), Token: r.GetPageToken()})
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ListDriftEventsResponse{Events: evs, NextPageToken: next}, nil
}

func (s *registryServer) AcceptDrift(ctx context.Context, r *mcpregv1.DriftDecisionRequest) (*mcpregv1.Version, error) {
	if r.GetId() <= 0 || r.GetId() > math.MaxInt32 {
		return nil, toStatus(ctx, s.log, registry.ErrInvalid)
	}
	v, err := s.svc.Scans.AcceptDrift(ctx, s.caller(ctx), int(r.GetId()), r.GetReason(), r.GetAcknowledgedWidenings()...)
	return v, toStatus(ctx, s.log, err)
}

func (s *registryServer) RepinVersion(ctx context.Context, r *mcpregv1.RepinVersionRequest) (*mcpregv1.Version, error) {
	v, err := s.svc.Scans.Repin(ctx, s.caller(ctx), r.GetName(), r.GetVersion(), r.GetReason())
	return v, toStatus(ctx, s.log, err)
}

func (s *registryServer) SetScanCredential(ctx context.Context, r *mcpregv1.SetScanCredentialRequest) (*mcpregv1.ScanCredential, error) {
	in := registry.CredentialInput{Headers: r.GetHeaders(), Env: r.GetEnv(), Scopes: r.GetScopes(), Origin: r.GetOrigin(), Package: r.GetPackage()}
	out, err := s.svc.Credentials.SetScanCredential(ctx, s.caller(ctx), r.GetName(), r.GetLabel(), in)
	return out, toStatus(ctx, s.log, err)
}

func (s *registryServer) ListScanCredentials(ctx context.Context, r *mcpregv1.ListScanCredentialsRequest) (*mcpregv1.ListScanCredentialsResponse, error) {
	out, err := s.svc.Credentials.ListScanCredentials(ctx, s.caller(ctx), r.GetName())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ListScanCredentialsResponse{Credentials: out}, nil
}

func (s *registryServer) DeleteScanCredential(ctx context.Context, r *mcpregv1.DeleteScanCredentialRequest) (*mcpregv1.ScanCredential, error) {
	out, err := s.svc.Credentials.DeleteScanCredential(ctx, s.caller(ctx), r.GetName(), r.GetLabel())
	return out, toStatus(ctx, s.log, err)
}

func (s *registryServer) DeclineDrift(ctx context.Context, r *mcpregv1.DriftDecisionRequest) (*mcpregv1.Version, error) {
	if r.GetId() <= 0 || r.GetId() > math.MaxInt32 {
		return nil, toStatus(ctx, s.log, registry.ErrInvalid)
	}
	v, err := s.svc.Scans.DeclineDrift(ctx, s.caller(ctx), int(r.GetId()), r.GetReason())
	return v, toStatus(ctx, s.log, err)
}
