package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Attestation is a sigstore bundle about one package artifact of a version,
// with the result of its latest verification. The bundle, the package it
// names and the digest are immutable; re-verification updates the result.
type Attestation struct{ ent.Schema }

// Fields of Attestation.
func (Attestation) Fields() []ent.Field {
	return []ent.Field{
		field.Int("version_id").Immutable(),
		// package_index is the entry's index in the version's server.json packages[].
		field.Int("package_index").Immutable(),
		// package_ref describes the entry, e.g. "npm @acme/weather-mcp 1.2.0".
		field.String("package_ref").Immutable(),
		// artifact_digest is "ALG:HEX"; digest_source says where it came from:
		// oci_reference or npm_registry (obtained by the registry), or
		// file_sha256, server_json_meta, request or upload (the owner's word).
		field.String("artifact_digest").Immutable(),
		field.String("digest_source").Immutable(),
		field.Bytes("bundle").Immutable(),
		field.String("bundle_digest").Immutable(),
		field.Bool("verified").Default(false),
		// receipt is the attest.Receipt JSON of the latest passing check.
		field.Bytes("receipt").Optional(),
		// error says why the latest check failed.
		field.String("error").Default(""),
		field.String("policy_digest").Default(""),
		field.Time("checked_at").Default(now),
		field.String("added_by").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
		// pending: added to an approved version, not yet confirmed by
		// another reviewer; nothing a host sees counts it until then.
		field.Bool("pending").Default(false),
		field.String("confirmed_by").Default(""),
		field.Time("confirmed_at").Optional().Nillable(),
	}
}

// Edges of Attestation.
func (Attestation) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", Version.Type).Ref("attestations").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of Attestation.
func (Attestation) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version_id", "package_index")}
}
