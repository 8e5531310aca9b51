package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// AuditEvent is one entry of the append-only, hash-chained audit log.
type AuditEvent struct{ ent.Schema }

// Fields of AuditEvent.
func (AuditEvent) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("seq").Unique().Positive().Immutable(),
		field.Time("occurred_at").Immutable(),
		field.String("actor").Immutable(),
		field.String("action").Immutable(),
		field.String("subject").Immutable(),
		field.String("before").Default("").Immutable(),
		field.String("after").Default("").Immutable(),
		field.String("reason").Default("").Immutable(),
		field.String("request_id").Default("").Immutable(),
		field.String("details").Default("").Immutable(),
		field.String("prev_hash").Immutable(),
		field.String("hash").Immutable(),
	}
}

// Indexes of AuditEvent.
func (AuditEvent) Indexes() []ent.Index {
	return []ent.Index{index.Fields("subject"), index.Fields("actor"), index.Fields("action")}
}

// AuditHead is a single row holding the chain's tip. Appenders lock it, so the
// chain stays one line under concurrent writers on every replica.
type AuditHead struct{ ent.Schema }

// Fields of AuditHead.
func (AuditHead) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("seq").Default(0),
		field.String("hash").Default(""),
	}
}

// IdempotencyKey remembers the first result of a keyed submission.
type IdempotencyKey struct{ ent.Schema }

// Fields of IdempotencyKey.
func (IdempotencyKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("principal").Immutable(),
		field.String("key").MaxLen(200).Immutable(),
		field.String("request_hash").Immutable(),
		field.Int("version_id").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Indexes of IdempotencyKey.
func (IdempotencyKey) Indexes() []ent.Index {
	return []ent.Index{index.Fields("principal", "key").Unique()}
}

// AuditCheckpoint is a signed note anchoring the audit chain: the chain's
// length and head hash at that length, signed with the discovery key. The
// unique length makes one checkpoint per boundary however many replicas
// race to write it.
type AuditCheckpoint struct{ ent.Schema }

// Fields of AuditCheckpoint.
func (AuditCheckpoint) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("length").Unique().Positive().Immutable(),
		field.String("head_hash").Immutable(),
		field.String("origin").Immutable(),
		field.String("key_id").Immutable(),
		field.Text("note").Immutable(),
		field.Time("created_at").Immutable(),
	}
}
