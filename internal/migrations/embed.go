package migrations

import (
	"embed"
	"fmt"
	"io/fs"
)

// The migration folders, each holding goose files (VERSION_NAME.sql) and
// atlas.sum.
var (
	//go:embed sqlite
	SQLite embed.FS
	//go:embed postgres
	Postgres embed.FS
)

// FS returns the migrations of a dialect ("sqlite3" or "postgres") with the
// files at the root, as goose expects them.
func FS(dialect string) (fs.FS, error) {
	switch dialect {
	case "sqlite3":
		return fs.Sub(SQLite, "sqlite")
	case "postgres":
		return fs.Sub(Postgres, "postgres")
	default:
		return nil, fmt.Errorf("migrations: no migrations for dialect %q (want sqlite3 or postgres)", dialect)
	}
}
