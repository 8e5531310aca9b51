package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ScanCredential is a set of credentials the scanner reads one server
// with (HTTP headers, environment variables of a stdio server), sealed
// with the registry's secrets key: AES-256-GCM, the server name and the
// label as associated data. Only the names of the headers and variables
// are stored in the clear, to show to admins; the values never leave the
// scanner once saved.
type ScanCredential struct{ ent.Schema }

// Fields of ScanCredential.
func (ScanCredential) Fields() []ent.Field {
	return []ent.Field{
		// server_name: credentials may be set before the server's first
		// (live) submission.
		field.String("server_name").Immutable(),
		field.String("label").Immutable(),
		field.JSON("scopes", []string{}),
		field.JSON("header_names", []string{}),
		field.JSON("env_names", []string{}),
		// origin is where the headers may go (scheme://host[:port]);
		// package the package identifier whose process gets the variables.
		// A version whose remote or package is another gets none: an
		// owner cannot point a new version at a server of their own to
		// collect the credentials.
		field.String("origin").Default(""),
		field.String("package").Default(""),
		// sealed is nonce || ciphertext; key_id names the secrets key.
		field.Bytes("sealed").Sensitive(),
		field.String("key_id"),
		field.String("created_by"),
		field.Time("created_at").Default(now),
	}
}

// Indexes of ScanCredential.
func (ScanCredential) Indexes() []ent.Index {
	return []ent.Index{index.Fields("server_name", "label").Unique()}
}
