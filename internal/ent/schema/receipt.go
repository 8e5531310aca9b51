package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Receipt is what a runtime gate recorded for one call it relayed, as a
// host posted it. A receipt is evidence of use, never of approval: it
// changes no version's state.
type Receipt struct{ ent.Schema }

// Fields of Receipt.
func (Receipt) Fields() []ent.Field {
	return []ent.Field{
		// receipt_id is the gate's id; a receipt posted twice is stored once.
		field.String("receipt_id").Unique().Immutable(),
		// principal is the host token's principal that posted it.
		field.String("principal").Immutable(),
		field.String("server_name").Immutable(),
		field.String("version").Immutable(),
		field.Int("pin_revision").Default(0).Immutable(),
		field.String("tool").Immutable(),
		field.String("tool_hash").Default("").Immutable(),
		field.String("arguments_digest").Immutable(),
		field.String("idempotency_key").Default("").Immutable(),
		field.Time("started_at").Immutable(),
		field.Time("ended_at").Immutable(),
		// outcome: committed, failed, uncertain or rejected.
		field.String("outcome").Immutable(),
		field.String("reason").Default("").Immutable(),
		field.String("result_digest").Default("").Immutable(),
		field.Strings("findings").Optional().Immutable(),
		field.Time("received_at").Default(now).Immutable(),
	}
}

// Indexes of Receipt.
func (Receipt) Indexes() []ent.Index {
	return []ent.Index{index.Fields("server_name", "version", "received_at"), index.Fields("received_at")}
}
