package store

import (
	"context"
	"fmt"
	"path"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/mcpreg/mcpreg/internal/migrations"
)

// MigrationInfo is the state of one embedded migration in the database.
type MigrationInfo struct {
	Version   int64
	Name      string // file name, e.g. 20250101120000_init.sql
	Applied   bool
	AppliedAt time.Time // zero while pending
}

// MigrateUp applies the embedded migrations of the store's dialect that the
// database lacks, recorded in goose's version table. On PostgreSQL an
// advisory lock keeps replicas starting together from migrating at once.
func (s *Store) MigrateUp(ctx context.Context) error {
	p, err := s.migrations()
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("store: migrate %s: %w", s.Dialect, err)
	}
	return nil
}

// MigrationStatus lists every embedded migration, oldest first, with whether
// and when it was applied.
func (s *Store) MigrationStatus(ctx context.Context) ([]MigrationInfo, error) {
	p, err := s.migrations()
	if err != nil {
		return nil, err
	}
	st, err := p.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: migration status: %w", err)
	}
	out := make([]MigrationInfo, 0, len(st))
	for _, m := range st {
		out = append(out, MigrationInfo{
			Version:   m.Source.Version,
			Name:      path.Base(m.Source.Path),
			Applied:   m.State == goose.StateApplied,
			AppliedAt: m.AppliedAt,
		})
	}
	return out, nil
}

// migrations returns a goose provider over the embedded files. Never Close
// it: that would close s.DB.
func (s *Store) migrations() (*goose.Provider, error) {
	fsys, err := migrations.FS(s.Dialect)
	if err != nil {
		return nil, err
	}
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	if s.Dialect == DialectPostgres {
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(goose.Dialect(s.Dialect), s.DB, fsys, opts...)
	if err != nil {
		return nil, fmt.Errorf("store: load %s migrations: %w", s.Dialect, err)
	}
	return p, nil
}
