package server

import (
	"context"

	"github.com/mcpreg/mcpreg/internal/registry"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func attestationInputs(in []*mcpregv1.AttestationInput) []registry.AttestationInput {
	out := make([]registry.AttestationInput, len(in))
	for i, a := range in {
		out[i] = attestationInput(a)
	}
	return out
}

func attestationInput(a *mcpregv1.AttestationInput) registry.AttestationInput {
	return registry.AttestationInput{PackageIndex: int(a.GetPackageIndex()), PackageIdentifier: a.GetPackageIdentifier(),
		Bundle: []byte(a.GetBundle()), ArtifactDigest: a.GetArtifactDigest(), Artifact: a.GetArtifact()}
}

func (s *registryServer) AddAttestation(ctx context.Context, r *mcpregv1.AddAttestationRequest) (*mcpregv1.Version, error) {
	v, err := s.svc.Attestations.AddAttestation(ctx, s.caller(ctx), r.GetName(), r.GetVersion(), attestationInput(r.GetAttestation()))
	return v, toStatus(ctx, s.log, err)
}

func (s *registryServer) VerifyAttestation(ctx context.Context, r *mcpregv1.VerifyAttestationRequest) (*mcpregv1.VerifyAttestationResponse, error) {
	a, err := s.svc.Attestations.VerifyAttestation(ctx, s.caller(ctx), []byte(r.GetBundle()), r.GetArtifactDigest(), r.GetArtifact(),
		registry.AttestPolicyFromProto(r.GetPolicy()))
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.VerifyAttestationResponse{Attestation: a}, nil
}

func (s *registryServer) ReverifyAttestations(ctx context.Context, _ *mcpregv1.ReverifyAttestationsRequest) (*mcpregv1.ReverifyAttestationsResponse, error) {
	rep, err := s.svc.Attestations.Reverify(ctx, s.caller(ctx))
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ReverifyAttestationsResponse{Checked: int32(rep.Checked), Passed: int32(rep.Passed),
		Failed: int32(rep.Failed), Quarantined: rep.Quarantined}, nil
}

func (s *registryServer) ConfirmAttestation(ctx context.Context, r *mcpregv1.ConfirmAttestationRequest) (*mcpregv1.Version, error) {
	v, err := s.svc.Attestations.ConfirmAttestation(ctx, s.caller(ctx), r.GetName(), r.GetVersion(), r.GetId(), r.GetReason())
	return v, toStatus(ctx, s.log, err)
}
