package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// ServerPolicy is what a server's versions must satisfy. Admins and
// reviewers set it, never owners alone; every change is audited.
type ServerPolicy struct{ ent.Schema }

// Fields of ServerPolicy.
func (ServerPolicy) Fields() []ent.Field {
	return []ent.Field{
		field.Int("server_id").Unique().Immutable(),
		field.Bool("require_contract").Default(false),
		// attestation is the attest.Policy JSON; empty means no attestation
		// policy.
		field.Bytes("attestation").Optional(),
		field.Time("updated_at").Default(now),
		field.String("updated_by"),
	}
}

// Edges of ServerPolicy.
func (ServerPolicy) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("server", Server.Type).Ref("policy").Field("server_id").Unique().Required().Immutable(),
	}
}
