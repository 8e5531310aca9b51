package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/ent"
	"github.com/mcpreg/mcpreg/ent/server"
	"github.com/mcpreg/mcpreg/ent/serverpolicy"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Policy is what a server's versions must satisfy.
type Policy struct {
	RequireContract bool
	// Attestation is the sigstore policy for the server's package
	// artifacts; nil means none.
	Attestation *attest.Policy
}

// GetPolicy returns a server's policy; a server nobody set one for has the
// zero policy.
func (s *Service) GetPolicy(ctx context.Context, c *Caller, name string) (*mcpregv1.ServerPolicy, error) {
	if err := checkReadName(c, name); err != nil {
		return nil, err
	}
	srv, err := s.store.Client.Server.Query().Where(server.Name(name)).WithPolicy().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFoundf("server %q", name)
	} else if err != nil {
		return nil, err
	}
	return policyProto(name, srv.Edges.Policy)
}

func policyProto(name string, p *ent.ServerPolicy) (*mcpregv1.ServerPolicy, error) {
	out := &mcpregv1.ServerPolicy{Name: name}
	if p == nil {
		return out, nil
	}
	out.RequireContract, out.UpdatedAt, out.UpdatedBy = p.RequireContract, ts(p.UpdatedAt), p.UpdatedBy
	ap, err := storedAttestPolicy(p)
	if err != nil {
		return nil, err
	}
	if ap != nil {
		out.Attestation, out.AttestationDigest = attestPolicyProto(ap), ap.Digest()
	}
	return out, nil
}

// policyOf loads a server's policy inside a transaction (zero when unset).
func policyOf(ctx context.Context, tx *ent.Tx, serverID int) (Policy, error) {
	p, err := tx.ServerPolicy.Query().Where(serverpolicy.ServerID(serverID)).Only(ctx)
	if ent.IsNotFound(err) {
		return Policy{}, nil
	} else if err != nil {
		return Policy{}, err
	}
	ap, err := storedAttestPolicy(p)
	return Policy{RequireContract: p.RequireContract, Attestation: ap}, err
}

// SetPolicy replaces a server's policy. Only admins and reviewers may: an
// owner could weaken it. The change and its reason are audited.
func (s *Service) SetPolicy(ctx context.Context, c *Caller, name string, p Policy, reason string) (*mcpregv1.ServerPolicy, error) {
	if !c.MayDecide() {
		return nil, deniedf("role %s may not change server policies", c.Role)
	}
	if strings.TrimSpace(reason) == "" {
		return nil, invalidf("reason is required")
	}
	if err := s.checkAttestPolicy(p.Attestation); err != nil {
		return nil, err
	}
	var out *ent.ServerPolicy
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		srv, err := tx.Server.Query().Where(server.Name(name)).Only(ctx)
		if ent.IsNotFound(err) {
			return notFoundf("server %q (a policy is set on a server after its first submission)", name)
		} else if err != nil {
			return err
		}
		before, err := policyOf(ctx, tx, srv.ID)
		if err != nil {
			return err
		}
		out, err = s.upsertPolicy(ctx, tx, srv.ID, c, p)
		if err != nil {
			return err
		}
		_, err = s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "policy.update", Subject: name,
			Before: policyText(before), After: policyText(p), Reason: strings.TrimSpace(reason), RequestID: c.RequestID,
			Details: string(attestPolicyJSON(p.Attestation))})
		return err
	})
	if err != nil {
		return nil, err
	}
	return policyProto(name, out)
}

func (s *Service) upsertPolicy(ctx context.Context, tx *ent.Tx, serverID int, c *Caller, p Policy) (*ent.ServerPolicy, error) {
	existing, err := tx.ServerPolicy.Query().Where(serverpolicy.ServerID(serverID)).Only(ctx)
	if ent.IsNotFound(err) {
		return tx.ServerPolicy.Create().SetServerID(serverID).SetRequireContract(p.RequireContract).
			SetAttestation(attestPolicyJSON(p.Attestation)).SetUpdatedBy(c.Principal).SetUpdatedAt(s.now()).Save(ctx)
	} else if err != nil {
		return nil, err
	}
	upd := existing.Update().SetRequireContract(p.RequireContract).SetUpdatedBy(c.Principal).SetUpdatedAt(s.now())
	if p.Attestation == nil {
		upd = upd.ClearAttestation()
	} else {
		upd = upd.SetAttestation(attestPolicyJSON(p.Attestation))
	}
	return upd.Save(ctx)
}

func policyText(p Policy) string {
	return fmt.Sprintf("requireContract=%t", p.RequireContract) + attestPolicyText(p.Attestation)
}
