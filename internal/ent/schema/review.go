package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ReviewDecision records one state transition of a version.
type ReviewDecision struct{ ent.Schema }

// Fields of ReviewDecision.
func (ReviewDecision) Fields() []ent.Field {
	return []ent.Field{
		field.Int("version_id").Immutable(),
		field.String("action").Immutable(),
		field.String("from_state").Immutable(),
		field.String("to_state").Immutable(),
		field.String("actor").Immutable(),
		field.String("reason").Immutable(),
		field.String("request_id").Default("").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Edges of ReviewDecision.
func (ReviewDecision) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", Version.Type).Ref("decisions").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of ReviewDecision.
func (ReviewDecision) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version_id")}
}
