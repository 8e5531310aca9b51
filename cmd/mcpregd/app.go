package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"strings"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/wiring"
)

// openApp opens and migrates the store and builds the services.
func openApp(ctx context.Context, g *globalOpts, log *slog.Logger, opts ...registry.Option) (*store.Store, *server.Services, error) {
	return openAppMigrating(ctx, g, log, true, opts...)
}

// openAppMigrating is openApp that, unless migrate is set, leaves the schema
// alone and refuses a database that lacks migrations this binary needs (the
// replicas of a deployment that runs `mcpregd migrate up` once).
func openAppMigrating(ctx context.Context, g *globalOpts, log *slog.Logger, migrate bool, opts ...registry.Option) (*store.Store, *server.Services, error) {
	st, err := store.Open(ctx, g.db, g.pool()...)
	if err != nil {
		return nil, nil, err
	}
	if migrate {
		err = st.MigrateUp(ctx)
	} else {
		err = schemaCurrent(ctx, st)
	}
	if err != nil {
		_ = st.Close()
		return nil, nil, fmt.Errorf("migrate: %w", err)
	}
	svc, err := wiring.NewServices(ctx, st, log, opts...)
	if err != nil {
		_ = st.Close()
		return nil, nil, err
	}
	return st, svc, nil
}

// localCaller is the actor recorded for admin commands run on the host.
func localCaller() *registry.Caller {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return &registry.Caller{Principal: "local:" + name + "@" + host, Role: registry.RoleAdmin}
}

// schemaCurrent fails when the database lacks migrations this binary has.
// A database ahead of the binary is fine: migrations only add, so the
// previous release keeps working during a rolling upgrade.
func schemaCurrent(ctx context.Context, st *store.Store) error {
	infos, err := st.MigrationStatus(ctx)
	if err != nil {
		return err
	}
	var pending []string
	for _, m := range infos {
		if !m.Applied {
			pending = append(pending, m.Name)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("the database lacks %d migration(s) this mcpregd needs (%s): run `mcpregd migrate up` first, or serve with --migrate",
			len(pending), strings.Join(pending, ", "))
	}
	return nil
}
