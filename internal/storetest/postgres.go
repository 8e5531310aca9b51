package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

var admin = sync.OnceValues(func() (*sql.DB, error) {
	db, err := sql.Open("pgx", os.Getenv(EnvPostgresDSN))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	return db, nil
})

// postgresDatabase creates database mcpreg_test_<random> on the server of
// MCPREG_TEST_POSTGRES_DSN, drops it (WITH (FORCE)) when the test ends, and
// returns the DSN's URL pointing at it.
func postgresDatabase(t testing.TB) string {
	t.Helper()
	serverDSN := os.Getenv(EnvPostgresDSN)
	if serverDSN == "" {
		Dialects(t) // fails or explains
		t.Skipf("storetest: %s not set", EnvPostgresDSN)
	}
	u, err := url.Parse(serverDSN)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("storetest: %s is not a postgres:// URL", EnvPostgresDSN)
	}
	db, err := admin()
	if err != nil {
		t.Fatalf("storetest: open %s: %v", EnvPostgresDSN, err)
	}
	name := "mcpreg_test_" + randomHex()
	ident := pgx.Identifier{name}.Sanitize()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+ident); err != nil {
		t.Fatalf("storetest: create database %s (the role needs CREATEDB): %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// An autovacuum worker may hold the database for a moment.
		var err error
		for attempt := 0; attempt < 5; attempt++ {
			if _, err = db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err == nil {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Errorf("storetest: drop database %s: %v", name, err)
	})
	u.Path = "/" + name
	return u.String()
}

func randomHex() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
