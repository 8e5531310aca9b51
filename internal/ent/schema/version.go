package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/mcpreg/mcpreg/internal/states"
)

// Version is an immutable release of a server. Only its state and the pin
// revision it points at move.
type Version struct{ ent.Schema }

// Fields of Version.
func (Version) Fields() []ent.Field {
	return []ent.Field{
		field.Int("server_id").Immutable(),
		field.String("version").NotEmpty().MaxLen(255).Immutable(),
		field.Enum("state").Values("pending_review", "approved", "rejected", "quarantined", "revoked").Default("pending_review"),
		field.String("state_reason").Default(""),
		field.Bytes("server_json").Immutable(),
		field.String("description").Default("").Immutable(),
		field.String("submitted_by").NotEmpty().Immutable(),
		field.Time("submitted_at").Default(now).Immutable(),
		field.Time("state_changed_at").Default(now),
		field.Int("pin_revision").Default(1),
		field.String("request_hash").Default("").Immutable(),
		// contract is the normalised capability contract as served (JSON).
		// It is normalised over the snapshot's tools when the version is
		// stored, and once more, over the tools read, when a version
		// imported with no tool snapshot gets its first (firstread.go);
		// never after approval.
		field.Bytes("contract").Optional(),
		// contract_source says where it came from: submitted, server_json_meta
		// or default (no contract submitted).
		field.String("contract_source").Default("default").Immutable(),
		// contract_raw is the contract document exactly as submitted.
		field.Bytes("contract_raw").Optional().Immutable(),
		// quarantine_kind says why a quarantined version is quarantined (a
		// states.QuarantineKind, "" for other states); it decides what
		// release needs.
		field.String("quarantine_kind").Default(string(states.QuarantineNone)),
		// quarantine_drift_id names the drift event behind a drift
		// quarantine.
		field.Int("quarantine_drift_id").Optional().Nillable(),
		// live_source says where a live snapshot is read: remote or package.
		field.String("live_source").Default("").Immutable(),
		// status is the lifecycle status hosts see beside the review
		// state, as the official registry has it: active or deprecated
		// (deleted is a revoked or quarantined version). Owners and
		// reviewers set it, with a message; status_changed_at is unset
		// until it first changes.
		field.Enum("status").Values("active", "deprecated").Default("active"),
		field.String("status_message").Default(""),
		field.Time("status_changed_at").Optional().Nillable(),
	}
}

// Edges of Version.
func (Version) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("server", Server.Type).Ref("versions").Field("server_id").Unique().Required().Immutable(),
		edge.To("snapshots", ToolSnapshot.Type),
		edge.To("pin_revisions", PinRevision.Type),
		edge.To("decisions", ReviewDecision.Type),
		edge.To("findings", Finding.Type),
		edge.To("scans", Scan.Type),
		edge.To("drift_events", DriftEvent.Type),
		edge.To("attestations", Attestation.Type),
		edge.To("scan_lease", ScanLease.Type).Unique(),
	}
}

// Indexes of Version.
func (Version) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("server_id", "version").Unique(),
		index.Fields("state"),
	}
}
