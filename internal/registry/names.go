package registry

import (
	"context"
	"regexp"
)

var (
	serverNameRE = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	// versionRE keeps versions usable as one URL path segment.
	versionRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9.+_~-]{0,254}$`)
)

// foldServerNames fills name_folded for servers stored before it existed
// (the migration adding it leaves it empty). Names are ASCII, so SQL's
// lower() folds them as strings.ToLower does; once done it touches no row.
func (s *core) foldServerNames(ctx context.Context) error {
	_, err := s.store.Client.ExecContext(ctx, "UPDATE servers SET name_folded = lower(name) WHERE name_folded = ''")
	return err
}
