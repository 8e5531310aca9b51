package registry

import (
	"context"
	"fmt"
	"strings"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/attestation"
	"github.com/mcpreg/mcpreg/internal/ent/finding"
	"github.com/mcpreg/mcpreg/internal/ent/pinrevision"
	"github.com/mcpreg/mcpreg/internal/ent/predicate"
	"github.com/mcpreg/mcpreg/internal/ent/reviewdecision"
	"github.com/mcpreg/mcpreg/internal/ent/scan"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/tool"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// checkReadName authorises reading a server by name before any lookup, so an
// owner learns nothing about other namespaces.
func checkReadName(c *Caller, name string) error {
	if !serverNameRE.MatchString(name) {
		return invalidf("server name %q does not match ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", name)
	}
	ns, _, _ := strings.Cut(name, "/")
	if !c.MayRead(ns) {
		return deniedf("%s may not read namespace %q", c.Principal, ns)
	}
	return nil
}

// GetServer returns one server.
func (s *Review) GetServer(ctx context.Context, c *Caller, name string) (*mcpregv1.Server, error) {
	if err := checkReadName(c, name); err != nil {
		return nil, err
	}
	srv, err := s.store.Client.Server.Query().Where(server.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFoundf("server %q", name)
	} else if err != nil {
		return nil, err
	}
	out, err := s.serversWithVersions(ctx, []*ent.Server{srv})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// GetVersion returns one version with its current snapshot, pins and
// decisions.
func (s *Review) GetVersion(ctx context.Context, c *Caller, name, ver string) (*mcpregv1.Version, error) {
	if err := checkReadName(c, name); err != nil {
		return nil, err
	}
	v, err := s.findVersion(ctx, name, ver)
	if err != nil {
		return nil, err
	}
	return s.versionByID(ctx, v.ID)
}

// versionByID loads a version for the API, with its snapshot, decisions,
// findings and attestations.
func (s *core) versionByID(ctx context.Context, id int) (*mcpregv1.Version, error) {
	v, err := s.store.Client.Version.Query().Where(version.ID(id)).WithServer().
		WithPinRevisions(func(q *ent.PinRevisionQuery) { q.Order(ent.Asc(pinrevision.FieldRevision)) }).
		WithDecisions(func(q *ent.ReviewDecisionQuery) { q.Order(ent.Asc(reviewdecision.FieldID)) }).
		WithFindings(func(q *ent.FindingQuery) { q.Order(ent.Asc(finding.FieldID)) }).
		WithAttestations(func(q *ent.AttestationQuery) { q.Order(ent.Asc(attestation.FieldID)) }).Only(ctx)
	if err != nil {
		return nil, fmt.Errorf("load version %d: %w", id, err)
	}
	out := versionProto(v, v.Edges.Server)
	cur := currentPins(v)
	if cur != nil {
		out.Pins = pinsProto(cur)
	}
	for _, d := range v.Edges.Decisions {
		out.Decisions = append(out.Decisions, decisionProto(d))
	}
	out.Findings = findingsProto(v.Edges.Findings)
	if err := s.linkFindingDrift(ctx, out.Findings); err != nil {
		return nil, err
	}
	out.Attestations = attestationsProto(v.Edges.Attestations)
	if out.Upstream, err = s.provenance(ctx, v.ID); err != nil {
		return nil, err
	}
	if cur != nil {
		out.Snapshot, err = s.snapshotByID(ctx, cur.SnapshotID)
	}
	return out, err
}

func currentPins(v *ent.Version) *ent.PinRevision {
	for _, p := range v.Edges.PinRevisions {
		if p.Revision == v.PinRevision {
			return p
		}
	}
	return nil
}

func (s *core) snapshotByID(ctx context.Context, id int) (*mcpregv1.ToolSnapshot, error) {
	snap, err := s.store.Client.ToolSnapshot.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("load snapshot %d: %w", id, err)
	}
	tools, err := s.store.Client.Tool.Query().Where(tool.SnapshotID(id)).Order(ent.Asc(tool.FieldPosition)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("load tools of snapshot %d: %w", id, err)
	}
	return snapshotProto(snap, tools), nil
}

// ServerFilter narrows server and version lists.
type ServerFilter struct {
	State, Owner, Namespace, Query string
}

func (f ServerFilter) validate() error {
	if f.State != "" {
		if err := version.StateValidator(version.State(f.State)); err != nil {
			return invalidf("state %q is not one of pending_review, approved, rejected, quarantined, revoked", f.State)
		}
	}
	return nil
}

// serverPredicates turns a filter and the caller's scope into predicates.
func serverPredicates(c *Caller, f ServerFilter) []predicate.Server {
	var ps []predicate.Server
	if !c.ReadsEverything() {
		ps = append(ps, namespaceScope(c.Namespaces))
	}
	if f.Owner != "" {
		ps = append(ps, server.Owner(f.Owner))
	}
	if f.Namespace != "" {
		ps = append(ps, server.Namespace(f.Namespace))
	}
	if f.Query != "" {
		ps = append(ps, server.Or(server.NameContainsFold(f.Query), server.DescriptionContainsFold(f.Query)))
	}
	return ps
}

// namespaceScope matches servers inside any of an owner's patterns.
func namespaceScope(patterns []string) predicate.Server {
	ors := []predicate.Server{server.ID(-1)} // no patterns: nothing
	for _, p := range patterns {
		switch prefix, wild := strings.CutSuffix(p, ".*"); {
		case p == "*":
			ors = append(ors, server.IDGT(0))
		case wild:
			ors = append(ors, namespaceBelow(prefix+"."))
		default:
			ors = append(ors, server.Namespace(p))
		}
	}
	return server.Or(ors...)
}

// namespaceBelow matches namespaces that start with prefix, byte for byte
// on both dialects. ent's HasPrefix writes LIKE, which SQLite compares
// without regard to ASCII case: an owner of com.acme.* would see
// COM.ACME.secret. Namespaces are ASCII (namespaceRE), so substr counts
// bytes on both dialects.
func namespaceBelow(prefix string) predicate.Server {
	return func(s *entsql.Selector) {
		s.Where(entsql.P(func(b *entsql.Builder) {
			b.WriteString("substr(").Ident(s.C(server.FieldNamespace)).WriteString(", 1, ").
				Arg(len(prefix)).WriteString(") = ").Arg(prefix)
		}))
	}
}

// serverIn matches versions whose server satisfies ps, as an uncorrelated
// "server_id IN (SELECT id FROM servers WHERE ...)". ent's HasServerWith
// writes a correlated EXISTS, which SQLite answers by scanning every version.
func serverIn(ps ...predicate.Server) predicate.Version {
	return func(s *entsql.Selector) {
		t := entsql.Table(server.Table)
		sub := entsql.Select(t.C(server.FieldID)).From(t)
		for _, p := range ps {
			p(sub)
		}
		s.Where(entsql.In(s.C(version.FieldServerID), sub))
	}
}

// PinRevision is one set of pins of a version, with why it was made.
type PinRevision struct {
	Version string
	Pins    *mcpregv1.Pins
	Reason  string
}

// PinHistory lists every pin revision of a server's versions, newest
// first, in one query: pins over time.
func (s *Review) PinHistory(ctx context.Context, c *Caller, name string) ([]PinRevision, error) {
	if err := checkReadName(c, name); err != nil {
		return nil, err
	}
	prs, err := s.store.Client.PinRevision.Query().Where(pinrevision.HasVersionWith(serverIn(server.Name(name)))).
		WithVersion(func(q *ent.VersionQuery) { q.Select(version.FieldID, version.FieldVersion) }).
		Order(ent.Desc(pinrevision.FieldCreatedAt), ent.Desc(pinrevision.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]PinRevision, len(prs))
	for i, p := range prs {
		out[i] = PinRevision{Version: p.Edges.Version.Version, Pins: pinsProto(p), Reason: p.Reason}
	}
	return out, nil
}

// linkFindingDrift names, for each finding a scan raised, the drift event
// that scan recorded (one query).
func (s *core) linkFindingDrift(ctx context.Context, fs []*mcpregv1.Finding) error {
	var ids []int
	for _, f := range fs {
		if f.GetScanId() > 0 {
			ids = append(ids, int(f.GetScanId()))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	scans, err := s.store.Client.Scan.Query().Where(scan.IDIn(ids...)).Select(scan.FieldID, scan.FieldDriftEventID).All(ctx)
	if err != nil {
		return fmt.Errorf("scans of findings: %w", err)
	}
	drift := map[int64]int64{}
	for _, sc := range scans {
		if sc.DriftEventID != nil {
			drift[int64(sc.ID)] = int64(*sc.DriftEventID)
		}
	}
	for _, f := range fs {
		f.DriftEventId = drift[f.GetScanId()]
	}
	return nil
}
