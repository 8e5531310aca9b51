package registry

import (
	"context"
	"slices"

	"github.com/mcpreg/mcpreg/ent"
	"github.com/mcpreg/mcpreg/finding"
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
			SetEvidence(f.Evidence).SetWideningID(f.WideningID)
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
	}
	return out
}
