package client

import (
	"context"
	"fmt"
	"net/http"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// AddAttestation attaches a sigstore bundle to a submitted version (owner in
// the namespace, or admin; audited) and returns the version with its
// attestations. A bundle that reads but does not verify is stored with its
// error; check the version's Attestations.
func (c *Client) AddAttestation(ctx context.Context, name, version string, in *mcpregv1.AttestationInput) (*mcpregv1.Version, error) {
	p, err := versionPath(name, version)
	if err != nil {
		return nil, err
	}
	if in.GetBundle() == "" {
		return nil, fmt.Errorf("%w: attestation for %s %s: the bundle is empty", ErrInvalid, name, version)
	}
	out := &mcpregv1.Version{}
	body := &mcpregv1.AddAttestationRequest{Attestation: in}
	return out, c.call(ctx, http.MethodPost, p+"/attestations", nil, body, out)
}

// VerifyAttestation verifies a bundle about an artifact (or its digest) against a
// policy through the registry's code path; nothing is stored. A bundle that
// does not verify is not an error: the result says verified=false and why.
func (c *Client) VerifyAttestation(ctx context.Context, req *mcpregv1.VerifyAttestationRequest) (*mcpregv1.VerifyAttestationResponse, error) {
	switch {
	case req.GetBundle() == "":
		return nil, fmt.Errorf("%w: verify attestation: the bundle is empty", ErrInvalid)
	case req.GetArtifactDigest() == "" && len(req.GetArtifact()) == 0:
		return nil, fmt.Errorf("%w: verify attestation: give the artifact or its digest", ErrInvalid)
	case req.GetPolicy() == nil:
		return nil, fmt.Errorf("%w: verify attestation: no policy", ErrInvalid)
	}
	out := &mcpregv1.VerifyAttestationResponse{}
	return out, c.call(ctx, http.MethodPost, "/v1/attestations:verify", nil, req, out)
}

// ReverifyAttestations re-runs every stored bundle against the current
// trusted roots and policies (admin only). Approved versions whose
// attestations no longer satisfy a required policy are quarantined; the
// result lists them.
func (c *Client) ReverifyAttestations(ctx context.Context) (*mcpregv1.ReverifyAttestationsResponse, error) {
	out := &mcpregv1.ReverifyAttestationsResponse{}
	return out, c.call(ctx, http.MethodPost, "/v1/attestations:reverify", nil, &mcpregv1.ReverifyAttestationsRequest{}, out)
}

// ConfirmAttestation confirms pending attestation id of a version (a
// reviewer or admin other than the principal who added it).
func (c *Client) ConfirmAttestation(ctx context.Context, name, version string, id int64, reason string) (*mcpregv1.Version, error) {
	p, err := versionPath(name, version)
	if err != nil {
		return nil, err
	}
	if id <= 0 {
		return nil, fmt.Errorf("%w: attestation id %d: want a positive id", ErrInvalid, id)
	}
	out := &mcpregv1.Version{}
	body := &mcpregv1.ConfirmAttestationRequest{Reason: reason}
	return out, c.call(ctx, http.MethodPost, fmt.Sprintf("%s/attestations/%d:confirm", p, id), nil, body, out)
}
