package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/user"

	"github.com/mcpreg/mcpreg/registry"
	"github.com/mcpreg/mcpreg/store"
)

// openApp opens and migrates the store and builds the registry service.
func openApp(ctx context.Context, g *globalOpts, log *slog.Logger, opts ...registry.Option) (*store.Store, *registry.Service, error) {
	st, err := store.Open(ctx, g.db)
	if err != nil {
		return nil, nil, err
	}
	if err := st.MigrateUp(ctx); err != nil {
		st.Close()
		return nil, nil, fmt.Errorf("migrate: %w", err)
	}
	svc, err := registry.New(ctx, st, append([]registry.Option{registry.WithLogger(log)}, opts...)...)
	if err != nil {
		st.Close()
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
