package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// HostCheck is one connect-time observation a host reported: what it saw
// on a server, what it was compared against and the verdict. A host's
// word never changes a version's state; a mismatch makes the registry scan.
type HostCheck struct{ ent.Schema }

// Fields of HostCheck.
func (HostCheck) Fields() []ent.Field {
	return []ent.Field{
		field.String("principal").Immutable(),
		field.String("server_name").Immutable(),
		field.String("version").Default("").Immutable(),
		// version_id is the version compared against; nil when unknown.
		field.Int("version_id").Optional().Nillable().Immutable(),
		field.Int("pin_revision").Default(0).Immutable(),
		// verdict: allowed, drifted or unknown; action: quarantine, warn or "".
		field.String("verdict").Immutable(),
		field.String("action").Default("").Immutable(),
		field.String("observed_digest").Immutable(),
		field.String("observed_tool_definition_hash").Default("").Immutable(),
		// tools is the observed tools/list result as received.
		field.Bytes("tools").Immutable(),
		field.Bytes("initialize_result").Optional().Immutable(),
		field.String("request_id").Default("").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Indexes of HostCheck.
func (HostCheck) Indexes() []ent.Index {
	return []ent.Index{index.Fields("server_name", "created_at"), index.Fields("version_id")}
}
