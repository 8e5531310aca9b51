package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// WebSession is a signed-in browser session of the reviewer web UI. Only
// the hash of the cookie token is stored; the CSRF token is per session.
type WebSession struct{ ent.Schema }

// Fields of WebSession.
func (WebSession) Fields() []ent.Field {
	return []ent.Field{
		field.String("token_hash").Unique().Immutable().Sensitive(),
		field.Int("principal_id").Immutable(),
		field.String("csrf_token").Immutable().Sensitive(),
		field.String("remote").Default("").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("last_seen_at").Default(now),
	}
}

// Edges of WebSession.
func (WebSession) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("principal", Principal.Type).Ref("web_sessions").Field("principal_id").Unique().Required().Immutable(),
	}
}

// Indexes of WebSession.
func (WebSession) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at")}
}
