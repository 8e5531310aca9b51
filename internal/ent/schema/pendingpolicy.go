package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// PendingPolicy is a proposed change of a server's policy that does not
// provably narrow it (a weakening). It is not in force: a reviewer or
// admin other than its proposer must confirm it. One per server; a new
// proposal replaces it, and any change put in force removes it.
type PendingPolicy struct{ ent.Schema }

// Fields of PendingPolicy.
func (PendingPolicy) Fields() []ent.Field {
	return []ent.Field{
		field.Int("server_id").Unique().Immutable(),
		field.Bool("require_contract").Default(false),
		// attestation is the proposed attest.Policy JSON; empty means none.
		field.Bytes("attestation").Optional(),
		// digest names the proposal; confirming must quote it.
		field.String("digest"),
		field.String("proposed_by"),
		field.Time("proposed_at").Default(now),
		field.String("reason").Default(""),
		// weakenings say why the change is not provably narrowing.
		field.JSON("weakenings", []string{}),
	}
}
