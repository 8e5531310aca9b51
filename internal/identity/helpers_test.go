package identity_test

import (
	"context"
	"testing"

	"github.com/mcpreg/mcpreg/internal/domain"
	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

var admin = &domain.Caller{Principal: "root", Role: domain.RoleAdmin}

// newService builds the identity service over st, writing its audit events
// into the registry's chain as mcpregd does.
func newService(t testing.TB, st *store.Store, opts ...identity.Option) *identity.Service {
	t.Helper()
	reg, err := registry.New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	return identity.New(st, reg.Audit.AuditWriter(), opts...)
}

// forEach runs fn per dialect on a fresh database.
func forEach(t *testing.T, fn func(t *testing.T, svc *identity.Service, st *store.Store)) {
	storetest.ForEachDialect(t, func(t *testing.T, st *store.Store) { fn(t, newService(t, st), st) })
}

// replicaPair is two replicas of one database.
type replicaPair struct {
	a, b *identity.Service
	st   *store.Store // the first replica's store, for direct checks
}

func (p replicaPair) replica(i int) *identity.Service { return []*identity.Service{p.a, p.b}[i] }
