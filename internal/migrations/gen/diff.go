package main

import (
	"context"
	"errors"

	"ariga.io/atlas/sql/migrate"
	"ariga.io/atlas/sql/sqltool"
	"entgo.io/ent/dialect/sql/schema"
	_ "github.com/mattn/go-sqlite3" // database/sql driver "sqlite3" for the dev database

	entmigrate "github.com/mcpreg/mcpreg/internal/ent/migrate"
)

// diff replays dir on the empty dev database at url and writes the
// difference to the ent schema as a new goose migration named name. It
// reports whether it wrote a file.
func diff(ctx context.Context, dir, name, url, dialect string) (bool, error) {
	d, err := sqltool.NewGooseDir(dir)
	if err != nil {
		return false, err
	}
	err = entmigrate.NamedDiff(ctx, url, name,
		schema.WithDir(d),
		schema.WithMigrationMode(schema.ModeReplay),
		schema.WithDialect(dialect),
		schema.WithDropColumn(true),
		schema.WithDropIndex(true),
		schema.WithErrNoPlan(true),
	)
	if errors.Is(err, migrate.ErrNoPlan) {
		return false, nil
	}
	return err == nil, err
}
