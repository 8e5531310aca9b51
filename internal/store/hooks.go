package store

import (
	"context"
	"time"

	"github.com/mcpreg/mcpreg/internal/ent"
)

// microsecondUTC stores every time field at microsecond precision in UTC.
// PostgreSQL's timestamptz would round nanoseconds while SQLite would keep
// them; truncating first makes both dialects read back exactly the value
// ent returned from the mutation, which matters for anything hashed (the
// audit chain). The schema's own now() default already truncates.
func microsecondUTC(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		for _, name := range m.Fields() {
			v, _ := m.Field(name)
			if t, ok := v.(time.Time); ok {
				if err := m.SetField(name, TruncateTime(t)); err != nil {
					return nil, err
				}
			}
		}
		return next.Mutate(ctx, m)
	})
}

// TruncateTime returns t as the store keeps it: in UTC, truncated to the
// microsecond. Hash a time only after passing it through TruncateTime.
func TruncateTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}
