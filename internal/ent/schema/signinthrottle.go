package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// SigninThrottle is the failed web sign-in budget of one key (a name or a
// client address), shared by every replica on the database. It is a GCRA
// token bucket: tat is the "theoretical arrival time", which each failure
// moves one interval past max(tat, now). A missing row, or one whose tat
// has passed, is a full budget.
type SigninThrottle struct{ ent.Schema }

// Fields of SigninThrottle.
func (SigninThrottle) Fields() []ent.Field {
	return []ent.Field{
		field.String("key").Unique().Immutable().NotEmpty().MaxLen(300),
		field.Time("tat"),
	}
}

// Indexes of SigninThrottle.
func (SigninThrottle) Indexes() []ent.Index {
	return []ent.Index{index.Fields("tat")}
}
