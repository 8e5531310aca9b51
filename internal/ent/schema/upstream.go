package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Upstream is a registry serving the official /v0.1 API whose servers, in
// the namespaces listed, are imported into review. Its token is sealed
// with the secrets key (the upstream's name as associated data); the sync
// state is the watermark of the next pass and, while a pass is under way
// or was cut short, where it resumes.
type Upstream struct{ ent.Schema }

// Fields of Upstream.
func (Upstream) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Unique().NotEmpty().MaxLen(63).Immutable(),
		field.String("url").NotEmpty().MaxLen(2048),
		field.JSON("namespaces", []string{}),
		// allow lists restricted addresses (loopback, private) the sync
		// client may dial for this upstream alone, as --scan-allow-hosts
		// does for scans.
		field.String("allow").Default(""),
		field.Int64("interval_seconds").Default(3600),
		// tools says how an imported version's tools are read: live (a
		// read under the scanner's rules) or none (no tool snapshot).
		field.String("tools").Default("live"),
		field.Bytes("token_sealed").Optional().Sensitive(),
		field.String("key_id").Default(""),
		field.String("created_by").NotEmpty(),
		field.Time("created_at").Default(now).Immutable(),
		// since is the updated_since of the next pass: the start of the
		// last successful pass minus the skew margin; unset before the
		// first.
		field.Time("since").Optional().Nillable(),
		// pass_started_at, pass_since and cursor are the pass under way or
		// cut short: its start, its updated_since and the cursor of the
		// next page not yet imported. A pass resumes from them.
		field.Time("pass_started_at").Optional().Nillable(),
		field.Time("pass_since").Optional().Nillable(),
		field.String("cursor").Default("").MaxLen(4096),
		// lease_owner holds the sync until lease_until: one replica syncs an
		// upstream at a time.
		field.String("lease_owner").Default(""),
		field.Time("lease_until").Optional().Nillable(),
		field.Time("last_pass_at").Optional().Nillable(),
		field.Time("last_success_at").Optional().Nillable(),
		field.String("last_error").Default(""),
		field.JSON("last_counts", map[string]int{}).Optional(),
	}
}

// UpstreamRecord is one server version an upstream listed: what it said
// of it (content hash, status, publication, its _meta as provenance) and
// what the sync did with it (imported as a local version, or why not).
// (upstream, name, version) is unique: a version is imported at most once.
type UpstreamRecord struct{ ent.Schema }

// Fields of UpstreamRecord.
func (UpstreamRecord) Fields() []ent.Field {
	return []ent.Field{
		field.String("upstream").NotEmpty().MaxLen(63).Immutable(),
		field.String("upstream_url").Immutable(),
		field.String("server_name").NotEmpty().MaxLen(200).Immutable(),
		field.String("version").NotEmpty().MaxLen(255).Immutable(),
		// content_hash is SHA-256 over the canonical (RFC 8785) server.json
		// received (of the imported version, once imported).
		field.String("content_hash"),
		field.String("status").Default("active"),
		field.String("status_message").Default(""),
		field.Time("published_at").Optional().Nillable(),
		field.Time("upstream_updated_at").Optional().Nillable(),
		// meta is the upstream's _meta, shown to reviewers as provenance,
		// never used as evidence.
		field.Bytes("meta").Optional(),
		// version_id is the local version imported from it, if any.
		field.Int("version_id").Optional().Nillable(),
		// outcome: imported, conflict (the name or version exists locally
		// from elsewhere), invalid (refused), deleted (listed as deleted
		// before it was imported).
		field.String("outcome"),
		field.String("detail").Default(""),
		field.Time("first_seen_at").Default(now).Immutable(),
		field.Time("last_seen_at").Default(now),
	}
}

// Indexes of UpstreamRecord.
func (UpstreamRecord) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("upstream", "server_name", "version").Unique(),
		index.Fields("version_id"),
	}
}
