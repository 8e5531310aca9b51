package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// atlas opens postgres:// URLs with database/sql under the driver name
// "postgres"; pgx serves it.
func init() { sql.Register("postgres", stdlib.GetDefaultDriver()) }

// diffPostgres runs diff against a scratch database created for the purpose
// on the server named by serverDSN, and drops it afterwards.
func diffPostgres(ctx context.Context, dir, name, serverDSN string) (bool, error) {
	if serverDSN == "" {
		return false, errNoPostgres
	}
	admin, err := sql.Open("postgres", serverDSN)
	if err != nil {
		return false, fmt.Errorf("open dev server: %w", err)
	}
	defer func() { _ = admin.Close() }()
	db := "mcpreg_gen_" + randomHex(6)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
		return false, fmt.Errorf("create scratch database (the role needs CREATEDB): %w", err)
	}
	defer func() {
		_, _ = admin.ExecContext(context.WithoutCancel(ctx), "DROP DATABASE IF EXISTS "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)")
	}()
	devURL, err := withDatabase(serverDSN, db)
	if err != nil {
		return false, err
	}
	return diff(ctx, dir, name, devURL, dialectPostgres)
}

// withDatabase returns the URL dsn with its database replaced by db.
func withDatabase(dsn, db string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("-postgres-dsn must be a postgres:// URL")
	}
	u.Path = "/" + db
	return u.String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
