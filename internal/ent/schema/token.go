package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Token is a bearer API token. Only the SHA-256 of the secret is stored.
type Token struct{ ent.Schema }

// Fields of Token.
func (Token) Fields() []ent.Field {
	return []ent.Field{
		field.String("public_id").Unique().NotEmpty().Immutable(),
		field.String("name").Default("").MaxLen(128),
		field.String("secret_hash").Unique().NotEmpty().Immutable().Sensitive(),
		field.Int("principal_id").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("expires_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
		field.Time("last_used_at").Optional().Nillable(),
	}
}

// Edges of Token.
func (Token) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("principal", Principal.Type).Ref("tokens").Field("principal_id").Unique().Required().Immutable(),
	}
}

// Indexes of Token.
func (Token) Indexes() []ent.Index {
	return []ent.Index{index.Fields("principal_id")}
}
