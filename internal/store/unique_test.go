package store_test

import (
	"context"
	"testing"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

func TestUniqueViolations(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := s.Client
		f := newFixture(ctx, t, c)
		c.Token.Create().SetPublicID("tok_1").SetSecretHash("sha256:aa").SetPrincipal(f.principal).SaveX(ctx)
		c.IdempotencyKey.Create().SetPrincipal("alice").SetKey("k1").SetRequestHash("h").SetVersionID(f.version.ID).SaveX(ctx)

		tests := []struct {
			name   string
			create func(context.Context, *ent.Client) error
		}{
			{"server name", func(ctx context.Context, c *ent.Client) error {
				_, err := c.Server.Create().SetName(f.server.Name).SetNamespace("io.github.acme").SetOwner("other").Save(ctx)
				return err
			}},
			{"server_id and version", func(ctx context.Context, c *ent.Client) error {
				_, err := c.Version.Create().SetServer(f.server).SetVersion(f.version.Version).
					SetServerJSON([]byte("{}")).SetSubmittedBy("alice").Save(ctx)
				return err
			}},
			{"token secret_hash", func(ctx context.Context, c *ent.Client) error {
				_, err := c.Token.Create().SetPublicID("tok_2").SetSecretHash("sha256:aa").SetPrincipal(f.principal).Save(ctx)
				return err
			}},
			{"idempotency principal and key", func(ctx context.Context, c *ent.Client) error {
				_, err := c.IdempotencyKey.Create().SetPrincipal("alice").SetKey("k1").SetRequestHash("other").SetVersionID(f.version.ID).Save(ctx)
				return err
			}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.create(ctx, c)
				if !ent.IsConstraintError(err) || !store.IsUniqueViolation(err) {
					t.Fatalf("duplicate insert: err %v (constraint error %v), want a unique violation", err, ent.IsConstraintError(err))
				}
				// Inside a transaction too, as the service writes.
				err = s.WithTx(ctx, func(tx *ent.Tx) error { return tt.create(ctx, tx.Client()) })
				if !store.IsUniqueViolation(err) {
					t.Fatalf("duplicate insert in a transaction: err %v, want a unique violation", err)
				}
			})
		}

		t.Run("foreign key is not unique", func(t *testing.T) {
			_, err := c.Version.Create().SetServerID(f.server.ID + 1000).SetVersion("9.9.9").
				SetServerJSON([]byte("{}")).SetSubmittedBy("alice").Save(ctx)
			if !ent.IsConstraintError(err) || store.IsUniqueViolation(err) {
				t.Fatalf("dangling server_id: err %v, want a constraint error that is no unique violation", err)
			}
		})
	})
}
