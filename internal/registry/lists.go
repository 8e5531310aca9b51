package registry

import (
	"context"
	"strconv"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/auditevent"
	"github.com/mcpreg/mcpreg/internal/ent/pinrevision"
	"github.com/mcpreg/mcpreg/internal/ent/predicate"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Page asks for one page of a list.
type Page struct {
	Size  int32
	Token string
}

// ListServers lists servers in name order.
func (s *Review) ListServers(ctx context.Context, c *Caller, f ServerFilter, pg Page) ([]*mcpregv1.Server, string, error) {
	size, after, err := s.pageArgs(pg, "servers")
	if err != nil {
		return nil, "", err
	}
	if err := f.validate(); err != nil {
		return nil, "", err
	}
	ps := serverPredicates(c, f)
	if f.State != "" {
		ps = append(ps, server.HasVersionsWith(version.StateEQ(version.State(f.State))))
	}
	if after != "" {
		ps = append(ps, server.NameGT(after))
	}
	rows, err := s.store.Client.Server.Query().Where(ps...).Order(ent.Asc(server.FieldName)).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, "", err
	}
	rows, next := trimPage(rows, size, func(r *ent.Server) string { return encodeCursor("servers", r.Name) })
	out, err := s.serversWithVersions(ctx, rows)
	return out, next, err
}

func (s *core) pageArgs(pg Page, kind string) (int, string, error) {
	size := s.pageSize(pg.Size)
	if size < 0 {
		return 0, "", invalidf("pageSize must not be negative")
	}
	after, err := decodeCursor(kind, pg.Token)
	return size, after, err
}

// intPageArgs is pageArgs for lists whose cursor is a row id or sequence.
func (s *core) intPageArgs(pg Page, kind string) (int, int64, error) {
	size := s.pageSize(pg.Size)
	if size < 0 {
		return 0, 0, invalidf("pageSize must not be negative")
	}
	cursor, err := decodeIntCursor(kind, pg.Token)
	return size, cursor, err
}

// trimPage cuts a page fetched with one extra row and makes the next token.
func trimPage[T any](rows []T, size int, cursor func(T) string) ([]T, string) {
	if len(rows) <= size {
		return rows, ""
	}
	rows = rows[:size]
	return rows, cursor(rows[size-1])
}

// serversWithVersions adds version counts and latest approved versions to a
// page of servers with one query.
func (s *Review) serversWithVersions(ctx context.Context, rows []*ent.Server) ([]*mcpregv1.Server, error) {
	ids := make([]int, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	var vs []struct {
		ServerID int    `json:"server_id"`
		Version  string `json:"version"`
		State    string `json:"state"`
	}
	err := s.store.Client.Version.Query().Where(version.ServerIDIn(ids...)).
		Select(version.FieldServerID, version.FieldVersion, version.FieldState).Scan(ctx, &vs)
	if err != nil {
		return nil, err
	}
	counts, approved := map[int]int{}, map[int][]string{}
	for _, v := range vs {
		counts[v.ServerID]++
		if v.State == string(version.StateApproved) {
			approved[v.ServerID] = append(approved[v.ServerID], v.Version)
		}
	}
	out := make([]*mcpregv1.Server, len(rows))
	for i, r := range rows {
		out[i] = serverProto(r, latestOf(approved[r.ID]), counts[r.ID])
	}
	return out, nil
}

// ListVersions lists versions, newest submission first, without snapshots.
func (s *Review) ListVersions(ctx context.Context, c *Caller, name string, f ServerFilter, pg Page) ([]*mcpregv1.Version, string, error) {
	size, before, err := s.intPageArgs(pg, "versions")
	if err != nil {
		return nil, "", err
	}
	if err := f.validate(); err != nil {
		return nil, "", err
	}
	ps, err := versionPredicates(c, name, f, before)
	if err != nil {
		return nil, "", err
	}
	rows, err := s.store.Client.Version.Query().Where(ps...).Order(ent.Desc(version.FieldID)).Limit(size + 1).
		WithServer().WithPinRevisions(func(q *ent.PinRevisionQuery) { q.Order(ent.Asc(pinrevision.FieldRevision)) }).All(ctx)
	if err != nil {
		return nil, "", err
	}
	rows, next := trimPage(rows, size, func(v *ent.Version) string { return encodeCursor("versions", strconv.Itoa(v.ID)) })
	out := make([]*mcpregv1.Version, len(rows))
	for i, v := range rows {
		out[i] = versionProto(v, v.Edges.Server)
		if p := currentPins(v); p != nil {
			out[i].Pins = pinsProto(p)
		}
	}
	return out, next, nil
}

func versionPredicates(c *Caller, name string, f ServerFilter, before int64) ([]predicate.Version, error) {
	var ps []predicate.Version
	if name != "" {
		if err := checkReadName(c, name); err != nil {
			return nil, err
		}
		ps = append(ps, serverIn(server.Name(name)))
	}
	if sp := serverPredicates(c, f); len(sp) > 0 {
		ps = append(ps, serverIn(sp...))
	}
	if f.State != "" {
		ps = append(ps, version.StateEQ(version.State(f.State)))
	}
	if before > 0 {
		ps = append(ps, version.IDLT(int(before)))
	}
	return ps, nil
}

// AuditFilter narrows the audit log.
type AuditFilter struct {
	Subject, Actor, Action string
	// NewestFirst lists the chain backwards; the default is chain order.
	NewestFirst bool
}

// ListAuditEvents lists audit events in chain order (oldest first), or
// newest first.
func (s *Audit) ListAuditEvents(ctx context.Context, f AuditFilter, pg Page) ([]*mcpregv1.AuditEvent, string, error) {
	size, after, err := s.intPageArgs(pg, "audit")
	if err != nil {
		return nil, "", err
	}
	ps := []predicate.AuditEvent{auditevent.SeqGT(after)}
	order := ent.Asc(auditevent.FieldSeq)
	if f.NewestFirst {
		ps, order = []predicate.AuditEvent{}, ent.Desc(auditevent.FieldSeq)
		if after > 0 {
			ps = append(ps, auditevent.SeqLT(after))
		}
	}
	if f.Subject != "" {
		ps = append(ps, auditevent.Subject(f.Subject))
	}
	if f.Actor != "" {
		ps = append(ps, auditevent.Actor(f.Actor))
	}
	if f.Action != "" {
		ps = append(ps, auditevent.Action(f.Action))
	}
	rows, err := s.store.Client.AuditEvent.Query().Where(ps...).Order(order).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, "", err
	}
	rows, next := trimPage(rows, size, func(e *ent.AuditEvent) string { return encodeCursor("audit", strconv.FormatInt(e.Seq, 10)) })
	out := make([]*mcpregv1.AuditEvent, len(rows))
	for i, e := range rows {
		out[i] = auditProto(e)
	}
	return out, next, nil
}
