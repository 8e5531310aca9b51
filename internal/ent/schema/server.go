package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Server is a named MCP server (reverse-DNS name as in the official registry).
type Server struct{ ent.Schema }

// Fields of Server.
func (Server) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Unique().NotEmpty().MaxLen(200).Immutable(),
		// name_folded is the name in lower case (names are ASCII), indexed
		// so refusing a case variant of an existing name reads one index
		// entry, not every server.
		field.String("name_folded").Default("").MaxLen(200).Immutable(),
		field.String("namespace").NotEmpty().MaxLen(200).Immutable(),
		field.String("owner").NotEmpty().MaxLen(128),
		field.String("description").Default("").MaxLen(1000),
		field.String("title").Default("").MaxLen(200),
		field.String("latest_version").Default("").MaxLen(255),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("updated_at").Default(now),
	}
}

// Edges of Server.
func (Server) Edges() []ent.Edge {
	return []ent.Edge{edge.To("versions", Version.Type), edge.To("policy", ServerPolicy.Type).Unique()}
}

// Indexes of Server.
func (Server) Indexes() []ent.Index {
	return []ent.Index{index.Fields("namespace"), index.Fields("owner"), index.Fields("name_folded")}
}
