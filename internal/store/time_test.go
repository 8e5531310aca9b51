package store_test

import (
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestTimesRoundTrip: what ent returns from a create is exactly what a
// later read returns, in UTC at microsecond precision, on both dialects.
// The audit chain hashes these values.
func TestTimesRoundTrip(t *testing.T) {
	berlin := time.FixedZone("CEST", 2*60*60)
	inputs := map[string]time.Time{
		"utc microseconds":   time.Date(2025, 3, 1, 12, 34, 56, 123456000, time.UTC),
		"whole second":       time.Date(2025, 3, 1, 12, 34, 56, 0, time.UTC),
		"last microsecond":   time.Date(2025, 12, 31, 23, 59, 59, 999999000, time.UTC),
		"nanoseconds":        time.Date(2025, 3, 1, 12, 34, 56, 123456789, time.UTC),
		"other zone":         time.Date(2025, 3, 1, 14, 34, 56, 500000000, berlin),
		"before 2000":        time.Date(1999, 12, 31, 23, 59, 59, 1000, time.UTC),
		"local now":          time.Now(),
		"rounds up in PG?":   time.Date(2025, 3, 1, 12, 34, 56, 999999999, time.UTC),
		"single microsecond": time.Date(2025, 3, 1, 12, 34, 56, 1000, time.UTC),
	}
	storetest.ForEachDialect(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		seq := int64(0)
		for name, in := range inputs {
			t.Run(name, func(t *testing.T) {
				seq++
				e, err := s.Client.AuditEvent.Create().SetSeq(seq).SetOccurredAt(in).SetActor("a").
					SetAction("x").SetSubject("s").SetPrevHash("").SetHash("h").Save(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want := store.TruncateTime(in)
				got := s.Client.AuditEvent.GetX(ctx, e.ID).OccurredAt
				for what, v := range map[string]time.Time{"created": e.OccurredAt, "read": got} {
					if v.Location() != time.UTC || !v.Equal(want) || v.Format(time.RFC3339Nano) != want.Format(time.RFC3339Nano) {
						t.Errorf("%s %s (%v), want %s in UTC", what, v.Format(time.RFC3339Nano), v.Location(), want.Format(time.RFC3339Nano))
					}
				}
			})
		}

		t.Run("schema default now", func(t *testing.T) {
			srv := s.Client.Server.Create().SetName("io.github.acme/t").SetNamespace("io.github.acme").SetOwner("o").SaveX(ctx)
			got := s.Client.Server.GetX(ctx, srv.ID)
			if got.CreatedAt.Location() != time.UTC || !got.CreatedAt.Equal(srv.CreatedAt) ||
				got.CreatedAt.Nanosecond()%1000 != 0 {
				t.Errorf("created_at: created %v, read %v; want equal, UTC, whole microseconds", srv.CreatedAt, got.CreatedAt)
			}
		})

		t.Run("optional time", func(t *testing.T) {
			f := newFixture(ctx, t, s.Client)
			in := time.Date(2030, 1, 2, 3, 4, 5, 678901234, berlin)
			tok := s.Client.Token.Create().SetPublicID("tok_t").SetSecretHash("sha256:t").
				SetPrincipal(f.principal).SetExpiresAt(in).SaveX(ctx)
			got := s.Client.Token.GetX(ctx, tok.ID)
			if got.ExpiresAt == nil || got.ExpiresAt.Location() != time.UTC || !got.ExpiresAt.Equal(store.TruncateTime(in)) {
				t.Errorf("expires_at read %v, want %v in UTC", got.ExpiresAt, store.TruncateTime(in))
			}
			if got.RevokedAt != nil {
				t.Errorf("revoked_at read %v, want nil", got.RevokedAt)
			}
		})
	})
}
