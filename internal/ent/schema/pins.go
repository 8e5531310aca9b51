package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ToolPinRecord is one tool's pin as stored in a pin revision.
type ToolPinRecord struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
	// Scopes are the OAuth scopes the scanner's credentials had in
	// common among those the tool was listed to; empty when it was read
	// without credentials.
	Scopes []string `json:"scopes,omitempty"`
}

// PinRevision is one set of pins for a version. Revisions only grow; old ones
// stay as history.
type PinRevision struct{ ent.Schema }

// Fields of PinRevision.
func (PinRevision) Fields() []ent.Field {
	return []ent.Field{
		field.Int("version_id").Immutable(),
		field.Int("revision").Positive().Immutable(),
		field.Int("snapshot_id").Immutable(),
		field.String("spec_version").Immutable(),
		field.String("tool_definition_hash").Immutable(),
		field.String("schema_hash").Immutable(),
		field.String("instructions_hash").Immutable(),
		field.String("contract_hash").Default("").Immutable(),
		// prompts_hash and resources_hash are set when spec_version is
		// mcpreg-pin-v2 and empty under v1.
		field.String("prompts_hash").Default("").Immutable(),
		field.String("resources_hash").Default("").Immutable(),
		field.JSON("tools", []ToolPinRecord{}).Immutable(),
		// prompts: each prompt's prompt_hash under mcpreg-pin-v2.
		field.JSON("prompts", []ToolPinRecord{}).Optional().Immutable(),
		field.String("created_by").Immutable(),
		field.String("reason").Default("").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Edges of PinRevision.
func (PinRevision) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", Version.Type).Ref("pin_revisions").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of PinRevision.
func (PinRevision) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version_id", "revision").Unique()}
}
