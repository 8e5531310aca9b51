package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/pendingpolicy"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/serverpolicy"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Policy is what a server's versions must satisfy.
type Policy struct {
	RequireContract bool
	// Attestation is the sigstore policy for the server's package
	// artifacts; nil means none.
	Attestation *attest.Policy
}

// GetPolicy returns a server's policy in force, and its pending change if
// any; a server nobody set one for has the zero policy.
func (s *Review) GetPolicy(ctx context.Context, c *Caller, name string) (*mcpregv1.ServerPolicy, error) {
	if err := checkReadName(c, name); err != nil {
		return nil, err
	}
	srv, err := s.store.Client.Server.Query().Where(server.Name(name)).WithPolicy().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFoundf("server %q", name)
	} else if err != nil {
		return nil, err
	}
	pending, err := pendingOf(ctx, s.store.Client, srv.ID)
	if err != nil {
		return nil, err
	}
	return policyProto(name, srv.Edges.Policy, pending)
}

func policyProto(name string, p *ent.ServerPolicy, pending *ent.PendingPolicy) (*mcpregv1.ServerPolicy, error) {
	out := &mcpregv1.ServerPolicy{Name: name}
	if pending != nil {
		var err error
		if out.Pending, err = pendingProto(pending); err != nil {
			return nil, err
		}
	}
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

// SetPolicy changes a server's policy. Only admins and reviewers may: an
// owner could weaken it. A change that provably narrows the policy
// (PolicyWeakenings finds nothing) applies at once; any other is stored as
// the server's pending change, replacing an earlier one, and takes effect
// only when another reviewer or admin confirms it (ConfirmPolicy), so one
// reviewer cannot weaken a policy and then approve under it alone. Both
// are audited.
func (s *Review) SetPolicy(ctx context.Context, c *Caller, name string, p Policy, reason string) (*mcpregv1.ServerPolicy, error) {
	if !c.MayDecide() {
		return nil, deniedf("role %s may not change server policies", c.Role)
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, invalidf("reason is required")
	}
	if err := s.attest.checkAttestPolicy(p.Attestation); err != nil {
		return nil, err
	}
	var out *mcpregv1.ServerPolicy
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		srv, err := s.lockPolicyServer(ctx, tx, name)
		if err != nil {
			return err
		}
		before, err := policyOf(ctx, tx, srv.ID)
		if err != nil {
			return err
		}
		if weak := PolicyWeakenings(before, p); len(weak) > 0 {
			err = s.proposePolicy(ctx, tx, c, srv, before, p, reason, weak)
		} else {
			err = s.applyPolicy(ctx, tx, c, srv, before, p, AuditRecord{Action: "policy.update", Reason: reason})
		}
		if err != nil {
			return err
		}
		out, err = policyInTx(ctx, tx, srv)
		return err
	})
	return out, err
}

// lockPolicyServer finds a server by name and, where the database locks
// rows, locks it: policy changes of one server are serialised.
func (s *Review) lockPolicyServer(ctx context.Context, tx *ent.Tx, name string) (*ent.Server, error) {
	q := tx.Server.Query().Where(server.Name(name))
	if s.store.RowLocks() {
		q = q.ForUpdate()
	}
	srv, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFoundf("server %q (a policy is set on a server after its first submission)", name)
	}
	return srv, err
}

// applyPolicy puts p in force, drops any pending change (a change put in
// force replaces it) and appends the audit event rec describes.
func (s *Review) applyPolicy(ctx context.Context, tx *ent.Tx, c *Caller, srv *ent.Server, before, p Policy, rec AuditRecord) error {
	if _, err := s.upsertPolicy(ctx, tx, srv.ID, c, p); err != nil {
		return err
	}
	dropped, err := tx.PendingPolicy.Delete().Where(pendingpolicy.ServerID(srv.ID)).Exec(ctx)
	if err != nil {
		return err
	}
	details := string(attestPolicyJSON(p.Attestation))
	if dropped > 0 && rec.Action == "policy.update" {
		details = strings.TrimSpace("pending change withdrawn; " + details)
	}
	rec.Actor, rec.Subject, rec.RequestID = c.Principal, srv.Name, c.RequestID
	rec.Before, rec.After, rec.Details = policyText(before), policyText(p), strings.TrimSpace(rec.Details+" "+details)
	err = s.appendAudit(ctx, tx, rec)
	return err
}

// proposePolicy stores p as the server's pending change, replacing any.
func (s *Review) proposePolicy(ctx context.Context, tx *ent.Tx, c *Caller, srv *ent.Server, before, p Policy, reason string, weak []string) error {
	if _, err := tx.PendingPolicy.Delete().Where(pendingpolicy.ServerID(srv.ID)).Exec(ctx); err != nil {
		return err
	}
	q := tx.PendingPolicy.Create().SetServerID(srv.ID).SetRequireContract(p.RequireContract).SetDigest(p.Digest()).
		SetProposedBy(c.Principal).SetProposedAt(s.now()).SetReason(reason).SetWeakenings(weak)
	if p.Attestation != nil {
		q = q.SetAttestation(attestPolicyJSON(p.Attestation))
	}
	if err := q.Exec(ctx); err != nil {
		return fmt.Errorf("store pending policy: %w", err)
	}
	err := s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "policy.propose", Subject: srv.Name,
		Before: policyText(before), After: policyText(p), Reason: reason, RequestID: c.RequestID,
		Details: "pending " + p.Digest() + ", needs another reviewer: " + strings.Join(weak, "; ")})
	return err
}

// ConfirmPolicy puts a server's pending change in force. The confirmer is
// an admin or reviewer other than the proposer and names the change by
// its digest, so a newer proposal is never confirmed unseen. Audited.
func (s *Review) ConfirmPolicy(ctx context.Context, c *Caller, name, digest, reason string) (*mcpregv1.ServerPolicy, error) {
	if !c.MayDecide() {
		return nil, deniedf("role %s may not confirm server policies", c.Role)
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, invalidf("reason is required")
	}
	if strings.TrimSpace(digest) == "" {
		return nil, invalidf("digest is required: quote the pending change's digest (mcpreg policy get %s)", name)
	}
	var out *mcpregv1.ServerPolicy
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		srv, err := s.lockPolicyServer(ctx, tx, name)
		if err != nil {
			return err
		}
		pp, p, err := s.confirmable(ctx, tx, c, srv, digest)
		if err != nil {
			return err
		}
		before, err := policyOf(ctx, tx, srv.ID)
		if err != nil {
			return err
		}
		err = s.applyPolicy(ctx, tx, c, srv, before, p, AuditRecord{Action: "policy.confirm", Reason: reason,
			Details: fmt.Sprintf("confirms %s proposed by %s (%s):", pp.Digest, pp.ProposedBy, strings.Join(pp.Weakenings, "; "))})
		if err != nil {
			return err
		}
		out, err = policyInTx(ctx, tx, srv)
		return err
	})
	return out, err
}

// confirmable returns the pending change c may confirm, or why not.
func (s *Review) confirmable(ctx context.Context, tx *ent.Tx, c *Caller, srv *ent.Server, digest string) (*ent.PendingPolicy, Policy, error) {
	pp, err := pendingOf(ctx, tx.Client(), srv.ID)
	switch {
	case err != nil:
		return nil, Policy{}, err
	case pp == nil:
		return nil, Policy{}, fmt.Errorf("%w: server %s has no pending policy change", ErrFailedPrecondition, srv.Name)
	case pp.Digest != strings.TrimSpace(digest):
		return nil, Policy{}, fmt.Errorf("%w: the pending policy change of %s is %s, not %s (a newer proposal replaced it: review it again)",
			ErrFailedPrecondition, srv.Name, pp.Digest, digest)
	case pp.ProposedBy == c.Principal:
		return nil, Policy{}, deniedf("four-eyes: %s proposed the pending policy change of %s and cannot confirm it", c.Principal, srv.Name)
	}
	ap, err := decodeAttestPolicy(srv.ID, pp.Attestation)
	if err != nil {
		return nil, Policy{}, err
	}
	p := Policy{RequireContract: pp.RequireContract, Attestation: ap}
	// The trusted roots may have changed since it was proposed.
	return pp, p, s.attest.checkAttestPolicy(p.Attestation)
}

func pendingOf(ctx context.Context, c *ent.Client, serverID int) (*ent.PendingPolicy, error) {
	pp, err := c.PendingPolicy.Query().Where(pendingpolicy.ServerID(serverID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return pp, err
}

// policyInTx is the server's policy as GetPolicy shows it, read in tx.
func policyInTx(ctx context.Context, tx *ent.Tx, srv *ent.Server) (*mcpregv1.ServerPolicy, error) {
	p, err := tx.ServerPolicy.Query().Where(serverpolicy.ServerID(srv.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		p, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	pending, err := pendingOf(ctx, tx.Client(), srv.ID)
	if err != nil {
		return nil, err
	}
	return policyProto(srv.Name, p, pending)
}

func pendingProto(pp *ent.PendingPolicy) (*mcpregv1.PendingPolicy, error) {
	ap, err := decodeAttestPolicy(pp.ServerID, pp.Attestation)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.PendingPolicy{RequireContract: pp.RequireContract, Attestation: attestPolicyProto(ap),
		Digest: pp.Digest, ProposedBy: pp.ProposedBy, ProposedAt: ts(pp.ProposedAt), Reason: pp.Reason, Weakenings: pp.Weakenings}
	if ap != nil {
		out.AttestationDigest = ap.Digest()
	}
	return out, nil
}

// Digest names a whole policy: "sha256:<hex>" of its JSON.
func (p Policy) Digest() string {
	data, _ := json.Marshal(struct {
		RequireContract bool            `json:"requireContract"`
		Attestation     json.RawMessage `json:"attestation"`
	}{p.RequireContract, attestPolicyJSON(p.Attestation)})
	return sha256Text(data)
}

func (s *Review) upsertPolicy(ctx context.Context, tx *ent.Tx, serverID int, c *Caller, p Policy) (*ent.ServerPolicy, error) {
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
