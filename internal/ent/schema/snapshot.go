package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ToolSnapshot is what a server said about itself at one time: initialize
// facts, the full tools/list and, when it listed any, its prompts (each
// with its prompts/get messages when it takes no required argument),
// resources and resource templates.
type ToolSnapshot struct{ ent.Schema }

// Fields of ToolSnapshot.
func (ToolSnapshot) Fields() []ent.Field {
	return []ent.Field{
		field.Int("version_id").Immutable(),
		field.String("source").Default("submission").Immutable(),
		field.String("protocol_version").Default("").Immutable(),
		field.Bytes("server_info").Optional().Immutable(),
		field.String("instructions").Optional().Nillable().Immutable(),
		// prompts, resources and resource_templates are JSON arrays of the
		// objects as received, byte for byte; nil when the server listed
		// none (or the snapshot predates prompts being read).
		field.Bytes("prompts").Optional().Immutable(),
		field.Bytes("resources").Optional().Immutable(),
		field.Bytes("resource_templates").Optional().Immutable(),
		// auth is what a remote server said about its authorization when
		// the snapshot was read (JSON: resource and authorization servers;
		// both empty when it publishes no OAuth metadata); nil when not
		// known (a package, a tools file, metadata that could not be read).
		field.Bytes("auth").Optional().Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Edges of ToolSnapshot.
func (ToolSnapshot) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", Version.Type).Ref("snapshots").Field("version_id").Unique().Required().Immutable(),
		edge.To("tools", Tool.Type),
	}
}

// Indexes of ToolSnapshot.
func (ToolSnapshot) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version_id")}
}

// Tool is one tool of a snapshot, kept as the raw JSON received.
type Tool struct{ ent.Schema }

// Fields of Tool.
func (Tool) Fields() []ent.Field {
	return []ent.Field{
		field.Int("snapshot_id").Immutable(),
		field.Int("position").Immutable(),
		field.String("name").Immutable(),
		field.Bytes("raw").Immutable(),
		field.String("tool_hash").Immutable(),
		// scopes: see ToolPinRecord.Scopes.
		field.Strings("scopes").Optional().Immutable(),
	}
}

// Edges of Tool.
func (Tool) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("snapshot", ToolSnapshot.Type).Ref("tools").Field("snapshot_id").Unique().Required().Immutable(),
	}
}

// Indexes of Tool.
func (Tool) Indexes() []ent.Index {
	return []ent.Index{index.Fields("snapshot_id", "position").Unique()}
}
