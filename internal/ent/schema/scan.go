package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/mcpreg/mcpreg/internal/states"
)

// Scan is one live reading of a version's server: when, why, what it saw
// (the raw tools file and the pins), or why it failed.
type Scan struct{ ent.Schema }

// Fields of Scan.
func (Scan) Fields() []ent.Field {
	return []ent.Field{
		field.Int("version_id").Immutable(),
		// trigger, outcome and error_kind hold the values of
		// states.ScanTrigger, states.ScanOutcome and states.ScanErrorKind
		// (error_kind is "" unless the outcome is error).
		field.String("trigger"),
		field.String("requested_by").Default(""),
		// replica is the mcpregd replica that ran the scan.
		field.String("replica").Default(""),
		field.Time("started_at").Default(now),
		field.Time("finished_at").Optional().Nillable(),
		field.String("outcome").Default(string(states.OutcomeRunning)),
		field.String("error").Default(""),
		field.String("error_kind").Default(""),
		field.String("tool_definition_hash").Default(""),
		field.String("schema_hash").Default(""),
		field.String("instructions_hash").Default(""),
		// prompts_hash and resources_hash are the scan's mcpreg-pin-v2
		// hashes; tools_file is everything the server showed a model (its
		// tools file with the prompts, resources and resource templates it
		// listed).
		field.String("prompts_hash").Default(""),
		// tool_scopes: per tool name, the scopes of ToolPinRecord.Scopes
		// (JSON object; absent when read without credentials).
		field.JSON("tool_scopes", map[string][]string{}).Optional(),
		field.String("resources_hash").Default(""),
		field.Bytes("tools_file").Optional(),
		// auth: see ToolSnapshot.auth.
		field.Bytes("auth").Optional(),
		field.Bytes("initialize_result").Optional(),
		field.Int("drift_event_id").Optional().Nillable(),
		// artifact_digest is the sha512 digest of the package tarball the
		// scan fetched and ran (npm packages); digest_source says what it
		// was checked against: a declared digest (file_sha256,
		// server_json_meta, attestation) or, with none, the npm registry's
		// integrity (npm_registry).
		field.String("artifact_digest").Default(""),
		field.String("digest_source").Default(""),
		// protocol_versions are the MCP protocol versions the scan read the
		// server over, the primary one (whose tools and pins these are)
		// first; readings is the raw answers of each (JSON: protocol
		// version, the raw initialize or server/discover result, the first
		// listing's tools file).
		field.Strings("protocol_versions").Optional(),
		field.Bytes("readings").Optional(),
	}
}

// Edges of Scan.
func (Scan) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", Version.Type).Ref("scans").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of Scan.
func (Scan) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version_id", "started_at")}
}

// ScanLease is a version's place in the shared scan schedule and the lease
// that lets one replica at a time scan it. holder is empty when nobody
// scans it; a lease whose expires_at has passed belongs to a replica that
// stopped renewing it (it died) and may be taken over.
type ScanLease struct{ ent.Schema }

// Fields of ScanLease.
func (ScanLease) Fields() []ent.Field {
	return []ent.Field{
		field.Int("version_id").Unique().Immutable(),
		// due_at is when the schedule scans the version next.
		field.Time("due_at"),
		field.String("holder").Default(""),
		field.Time("expires_at").Optional().Nillable(),
		// scan_id is the scan the holder is running.
		field.Int("scan_id").Optional().Nillable(),
	}
}

// Edges of ScanLease.
func (ScanLease) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", Version.Type).Ref("scan_lease").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of ScanLease.
func (ScanLease) Indexes() []ent.Index {
	return []ent.Index{index.Fields("due_at")}
}

// DriftEvent is a scan whose snapshot differs from the approved pins, with
// the classified changes and what became of it.
type DriftEvent struct{ ent.Schema }

// DriftChange is one classified difference, as stored. Class, Severity and
// Action hold the values of diffreview.Class, finding.Severity and
// diffreview.Action.
type DriftChange struct {
	Class    string `json:"class"`
	Severity string `json:"severity"`
	Action   string `json:"action"`
	Tool     string `json:"tool,omitempty"`
	Prompt   string `json:"prompt,omitempty"`
	Resource string `json:"resource,omitempty"`
	Pointer  string `json:"pointer,omitempty"`
	Before   string `json:"before,omitempty"`
	After    string `json:"after,omitempty"`
	Message  string `json:"message"`
	// Detail is the reviewer's diff (words, schema, annotations) as JSON.
	Detail []byte `json:"detail,omitempty"`
}

// Fields of DriftEvent.
func (DriftEvent) Fields() []ent.Field {
	return []ent.Field{
		field.Int("version_id").Immutable(),
		field.Int("scan_id").Immutable(),
		field.Int("pin_revision").Immutable(),
		// action: quarantine or warn (the strictest of the changes).
		field.String("action").Immutable(),
		field.JSON("changes", []DriftChange{}).Immutable(),
		// status holds the values of states.DriftStatus.
		field.String("status").Default(string(states.DriftOpen)),
		field.String("resolved_by").Default(""),
		field.String("resolution_reason").Default(""),
		field.Time("resolved_at").Optional().Nillable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Edges of DriftEvent.
func (DriftEvent) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", Version.Type).Ref("drift_events").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of DriftEvent.
func (DriftEvent) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version_id")}
}
