package registry

import (
	"context"
	"slices"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/ent"
	entfinding "github.com/mcpreg/mcpreg/internal/ent/finding"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Finding sources.
const (
	SourceSubmission = "submission"
	SourceContract   = "contract"
)

// recorded is a finding as stored: with where it came from and, for a
// contract widening, the id approval must acknowledge.
type recorded struct {
	finding.Finding
	Source     string
	WideningID string
	// ScanID is the scan that raised the finding; 0: none did.
	ScanID int
}

// saveFindings stores a version's findings in tx.
func saveFindings(ctx context.Context, tx *ent.Tx, versionID int, fs []recorded) error {
	if len(fs) == 0 {
		return nil
	}
	builders := make([]*ent.FindingCreate, len(fs))
	for i, f := range fs {
		builders[i] = tx.Finding.Create().SetVersionID(versionID).SetSource(f.Source).SetKind(f.Kind).
			SetSeverity(string(f.Severity)).SetTool(f.Tool).SetPointer(f.Pointer).SetMessage(f.Message).
			SetEvidence(f.Evidence).SetSpanStart(f.Span.Start).SetSpanEnd(f.Span.End).SetWideningID(f.WideningID)
		if f.ScanID > 0 {
			builders[i].SetScanID(f.ScanID)
		}
	}
	for chunk := range slices.Chunk(builders, 100) {
		if err := tx.Finding.CreateBulk(chunk...).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// findingsProto shows findings highest severity first.
func findingsProto(fs []*ent.Finding) []*mcpregv1.Finding {
	sorted := slices.Clone(fs)
	slices.SortStableFunc(sorted, func(a, b *ent.Finding) int {
		return finding.Severity(b.Severity).Rank() - finding.Severity(a.Severity).Rank()
	})
	out := make([]*mcpregv1.Finding, len(sorted))
	for i, f := range sorted {
		out[i] = &mcpregv1.Finding{Source: f.Source, Kind: f.Kind, Severity: f.Severity, Tool: f.Tool,
			Pointer: f.Pointer, Message: f.Message, Evidence: f.Evidence, WideningId: f.WideningID}
		if f.SpanEnd > f.SpanStart {
			out[i].Span = &mcpregv1.FindingSpan{Start: int32(f.SpanStart), End: int32(f.SpanEnd)}
		}
		if f.ScanID != nil {
			out[i].ScanId = int64(*f.ScanID)
		}
		if f.ResolvedByDrift != nil {
			out[i].ResolvedByDrift = int64(*f.ResolvedByDrift)
		}
		out[i].ResolvedAt = tsPtr(f.ResolvedAt)
	}
	return out
}

// FindingCounts counts the findings of many versions by severity in a
// fixed number of queries (one GROUP BY over the wanted versions):
// subject ("NAME@VERSION") → severity → count. Versions the caller may
// not read are left out.
func (s *Scans) FindingCounts(ctx context.Context, c *Caller, subjects []string) (map[string]map[string]int, error) {
	want, names, err := subjectNames(subjects)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]int{}
	for chunk := range slices.Chunk(names, 500) {
		vs, err := s.store.Client.Version.Query().Where(version.HasServerWith(server.NameIn(chunk...))).
			Select(version.FieldID, version.FieldServerID, version.FieldVersion).WithServer().All(ctx)
		if err != nil {
			return nil, err
		}
		subjectOfID := map[int]string{}
		var ids []int
		for _, v := range vs {
			if sub := subjectOf(v.Edges.Server.Name, v.Version); want[sub] && c.MayRead(v.Edges.Server.Namespace) {
				subjectOfID[v.ID] = sub
				ids = append(ids, v.ID)
			}
		}
		var rows []struct {
			VersionID int    `json:"version_id"`
			Severity  string `json:"severity"`
			Count     int    `json:"count"`
		}
		err = s.store.Client.Finding.Query().Where(entfinding.VersionIDIn(ids...), entfinding.ResolvedAtIsNil()).
			GroupBy(entfinding.FieldVersionID, entfinding.FieldSeverity).Aggregate(ent.Count()).Scan(ctx, &rows)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			sub := subjectOfID[r.VersionID]
			if out[sub] == nil {
				out[sub] = map[string]int{}
			}
			out[sub][r.Severity] = r.Count
		}
	}
	return out, nil
}
