package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Finding is something a reviewer must see about a version: a contract
// check, a contract widening to acknowledge, later scan and attestation
// problems.
type Finding struct{ ent.Schema }

// Fields of Finding.
func (Finding) Fields() []ent.Field {
	return []ent.Field{
		field.Int("version_id").Immutable(),
		field.String("source").Immutable(),
		field.String("kind").Immutable(),
		field.String("severity").Immutable(),
		field.String("tool").Default("").Immutable(),
		field.String("pointer").Default("").Immutable(),
		field.String("message").Immutable(),
		field.String("evidence").Default("").Immutable(),
		// span_start and span_end locate the evidence in the string at
		// pointer: rune offsets into the string as decoded from JSON; both
		// 0 when the finding is not about part of one string.
		field.Int("span_start").Default(0).Immutable(),
		field.Int("span_end").Default(0).Immutable(),
		// widening_id is set on contract widenings: approval must acknowledge it.
		field.String("widening_id").Default("").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
		// scan_id is the scan that raised the finding; nil for findings of
		// the submission, the contract or an attestation.
		field.Int("scan_id").Optional().Nillable().Immutable(),
		// resolved_by_drift is the drift event whose resolution (accepted,
		// or released after a matching scan) made a scan's finding
		// history: kept, no longer current.
		field.Int("resolved_by_drift").Optional().Nillable(),
		field.Time("resolved_at").Optional().Nillable(),
	}
}

// Edges of Finding.
func (Finding) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", Version.Type).Ref("findings").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of Finding.
func (Finding) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version_id")}
}
