// Command gen writes goose-format versioned SQL migrations for each dialect
// from the ent schema (ent/migrate), using atlas's replay mode: it replays the
// existing migrations of a dialect on an empty dev database, compares the
// result with the ent schema and writes only the difference as a new file.
// Without a schema change it writes nothing.
//
// Run from the repository root:
//
//	go run ./internal/migrations/gen -postgres-dsn postgres://mcpreg:mcpreg@127.0.0.1:5432/mcpreg?sslmode=disable
//
// The sqlite dev database is in memory. For postgres it creates a scratch
// database on the server named by -postgres-dsn (or MCPREG_DEV_POSTGRES_DSN,
// else MCPREG_TEST_POSTGRES_DSN), so that role needs CREATEDB; the scratch
// database is dropped afterwards.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

const (
	sqliteDevURL    = "sqlite://dev?mode=memory&cache=shared&_fk=1"
	dialectSQLite   = "sqlite3"
	dialectPostgres = "postgres"
)

type options struct {
	root     string
	name     string
	dialects []string
	pgDSN    string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "migrations/gen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	for _, d := range o.dialects {
		if err := generate(ctx, o, d, out); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
	}
	return nil
}

func parseFlags(args []string) (*options, error) {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	o := &options{}
	var dialects string
	fs.StringVar(&o.root, "dir", "internal/migrations", "folder holding the sqlite/ and postgres/ migration folders")
	fs.StringVar(&o.name, "name", "", `name of a new migration (default "init" for a dialect's first, else "changes")`)
	fs.StringVar(&dialects, "dialects", "sqlite3,postgres", "comma-separated dialects to generate")
	fs.StringVar(&o.pgDSN, "postgres-dsn", defaultPostgresDSN(), "PostgreSQL server for the postgres dev database (role needs CREATEDB)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	for _, d := range strings.Split(dialects, ",") {
		switch d = strings.TrimSpace(d); d {
		case dialectSQLite, dialectPostgres:
			o.dialects = append(o.dialects, d)
		default:
			return nil, fmt.Errorf("unknown dialect %q in -dialects (want %s or %s)", d, dialectSQLite, dialectPostgres)
		}
	}
	return o, nil
}

func defaultPostgresDSN() string {
	if v := os.Getenv("MCPREG_DEV_POSTGRES_DSN"); v != "" {
		return v
	}
	return os.Getenv("MCPREG_TEST_POSTGRES_DSN")
}

func generate(ctx context.Context, o *options, dialect string, out io.Writer) error {
	dir := filepath.Join(o.root, folder(dialect))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name, err := migrationName(dir, o.name)
	if err != nil {
		return err
	}
	var wrote bool
	switch dialect {
	case dialectSQLite:
		wrote, err = diff(ctx, dir, name, sqliteDevURL, dialect)
	default:
		wrote, err = diffPostgres(ctx, dir, name, o.pgDSN)
	}
	if err != nil {
		return err
	}
	if wrote {
		fmt.Fprintf(out, "%s: wrote migration %q in %s\n", dialect, name, dir)
	} else {
		fmt.Fprintf(out, "%s: schema unchanged, no migration written\n", dialect)
	}
	return nil
}

func folder(dialect string) string {
	if dialect == dialectSQLite {
		return "sqlite"
	}
	return "postgres"
}

// migrationName picks the name of a new migration: the flag when given, else
// "init" while the folder has no migration yet.
func migrationName(dir, flagName string) (string, error) {
	if flagName != "" {
		return flagName, nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "init", nil
	}
	return "changes", nil
}

var errNoPostgres = errors.New("postgres migrations need a dev PostgreSQL server: pass -postgres-dsn or set MCPREG_DEV_POSTGRES_DSN (.ci/postgres.sh starts one), or generate only sqlite with -dialects sqlite3")
