package registry

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpreg/mcpreg/internal/ent"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// VersionView is a version as the API shows it.
type VersionView = mcpregv1.Version

func ts(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

func tsPtr(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(*t)
}

func versionProto(v *ent.Version, srv *ent.Server) *mcpregv1.Version {
	out := &mcpregv1.Version{
		Name: srv.Name, Version: v.Version, State: string(v.State), StateReason: v.StateReason,
		StateChangedAt: ts(v.StateChangedAt), SubmittedBy: v.SubmittedBy, SubmittedAt: ts(v.SubmittedAt),
		Description: v.Description, Owner: srv.Owner, ServerJson: string(v.ServerJSON),
		Contract: string(v.Contract), ContractSource: v.ContractSource, QuarantineKind: v.QuarantineKind,
		Status: statusOf(v), StatusMessage: v.StatusMessage, StatusChangedAt: tsPtr(v.StatusChangedAt),
	}
	if v.QuarantineDriftID != nil {
		out.QuarantineDriftId = int64(*v.QuarantineDriftID)
	}
	return out
}

func pinsProto(p *ent.PinRevision) *mcpregv1.Pins {
	out := &mcpregv1.Pins{SpecVersion: p.SpecVersion, Revision: int32(p.Revision),
		ToolDefinitionHash: p.ToolDefinitionHash, SchemaHash: p.SchemaHash, InstructionsHash: p.InstructionsHash,
		ContractHash: p.ContractHash, PromptsHash: p.PromptsHash, ResourcesHash: p.ResourcesHash,
		CreatedAt: ts(p.CreatedAt), CreatedBy: p.CreatedBy, Tools: make([]*mcpregv1.ToolPin, len(p.Tools))}
	for i, t := range p.Tools {
		out.Tools[i] = &mcpregv1.ToolPin{Name: t.Name, Hash: t.Hash, Scopes: t.Scopes}
	}
	for _, pp := range p.Prompts {
		out.Prompts = append(out.Prompts, &mcpregv1.ToolPin{Name: pp.Name, Hash: pp.Hash})
	}
	return out
}

func snapshotProto(s *ent.ToolSnapshot, tools []*ent.Tool) *mcpregv1.ToolSnapshot {
	out := &mcpregv1.ToolSnapshot{Source: s.Source, ProtocolVersion: s.ProtocolVersion,
		ServerInfo: string(s.ServerInfo), Instructions: s.Instructions, CreatedAt: ts(s.CreatedAt),
		Prompts: string(s.Prompts), Resources: string(s.Resources), ResourceTemplates: string(s.ResourceTemplates),
		Tools: make([]*mcpregv1.Tool, len(tools))}
	for i, t := range tools {
		out.Tools[i] = &mcpregv1.Tool{Name: t.Name, RawJson: string(t.Raw), Hash: t.ToolHash}
	}
	return out
}

func decisionProto(d *ent.ReviewDecision) *mcpregv1.Decision {
	return &mcpregv1.Decision{Action: d.Action, FromState: d.FromState, ToState: d.ToState, Actor: d.Actor,
		Reason: d.Reason, RequestId: d.RequestID, CreatedAt: ts(d.CreatedAt)}
}

func serverProto(s *ent.Server, latestApproved string, count int) *mcpregv1.Server {
	return &mcpregv1.Server{Name: s.Name, Namespace: s.Namespace, Owner: s.Owner, Description: s.Description,
		Title: s.Title, LatestVersion: s.LatestVersion, LatestApprovedVersion: latestApproved,
		VersionCount: int32(count), CreatedAt: ts(s.CreatedAt), UpdatedAt: ts(s.UpdatedAt)}
}

func auditProto(e *ent.AuditEvent) *mcpregv1.AuditEvent {
	return &mcpregv1.AuditEvent{Seq: e.Seq, OccurredAt: ts(e.OccurredAt), Actor: e.Actor, Action: e.Action,
		Subject: e.Subject, Before: e.Before, After: e.After, Reason: e.Reason, RequestId: e.RequestID,
		Details: e.Details, PrevHash: e.PrevHash, Hash: e.Hash}
}

// PrincipalProto shows a caller.
func PrincipalProto(c *Caller) *mcpregv1.Principal {
	return &mcpregv1.Principal{Name: c.Principal, Role: string(c.Role), Namespaces: c.Namespaces, EnvLabels: c.EnvLabels}
}
