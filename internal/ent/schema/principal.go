package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Principal is an identity: a person or a machine. It holds any number of API
// tokens; four-eyes compares principals, never tokens.
type Principal struct{ ent.Schema }

// Fields of Principal.
func (Principal) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Unique().NotEmpty().MaxLen(128),
		field.Enum("role").Values("admin", "reviewer", "owner", "host"),
		// kind is account (people and machines holding tokens) or upstream
		// (the system principal upstream:NAME that submits what a sync
		// imports: no credentials, never signs in).
		field.Enum("kind").Values("account", "upstream").Default("account"),
		field.JSON("namespaces", []string{}).Optional(),
		field.JSON("env_labels", []string{}).Optional(),
		// password_hash is an argon2id hash (PHC string) for web sign-in;
		// empty for principals that only use tokens.
		field.String("password_hash").Default("").Sensitive(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Edges of Principal.
func (Principal) Edges() []ent.Edge {
	return []ent.Edge{edge.To("tokens", Token.Type), edge.To("web_sessions", WebSession.Type)}
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
