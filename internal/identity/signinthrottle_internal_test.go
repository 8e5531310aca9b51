package identity

import (
	"context"
	"fmt"
	"testing"

	"github.com/alexedwards/argon2id"

	"github.com/mcpreg/mcpreg/internal/storetest"
)

// BenchmarkSignInThrottle measures what the shared throttle adds to a
// sign-in: the attempt every sign-in takes before hashing (one transaction
// locking and updating a name row and an address row), refused ("check":
// one name and address, out of attempts after the first few) and spent
// ("failure": one name, a new address each time, as an attack spread over
// addresses gives). For scale, argon2id is the
// password comparison every attempt that passes the check makes.
func BenchmarkSignInThrottle(b *testing.B) {
	b.Run("argon2id", func(b *testing.B) {
		for b.Loop() {
			if _, err := argon2id.ComparePasswordAndHash("guess", dummyHash); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, d := range storetest.Dialects(b) {
		b.Run(d, func(b *testing.B) {
			ctx := context.Background()
			s := New(storetest.Open(b, d), nil)
			b.Run("check", func(b *testing.B) {
				keys := throttleKeys("rita", "10.0.0.1")
				for b.Loop() {
					if _, err := s.takeAttempt(ctx, s.now(), keys); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("failure", func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					if _, err := s.takeAttempt(ctx, s.now(), throttleKeys("rita", fmt.Sprintf("addr-%d", i))); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
