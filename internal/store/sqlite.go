package store

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strconv"

	// database/sql driver "sqlite3".
	_ "github.com/mattn/go-sqlite3"
)

// sqliteParams are go-sqlite3's connection settings: foreign keys on, WAL,
// a busy timeout, BEGIN IMMEDIATE for every transaction (writers queue at
// BEGIN instead of failing on lock upgrade), and times read back in UTC.
func sqliteParams(c config) string {
	v := url.Values{}
	v.Set("_fk", "1")
	v.Set("_journal_mode", "WAL")
	v.Set("_synchronous", "NORMAL")
	v.Set("_busy_timeout", strconv.FormatInt(c.busyTimeout.Milliseconds(), 10))
	v.Set("_txlock", "immediate")
	v.Set("_loc", "UTC")
	return v.Encode()
}

func openSQLite(t *dsnTarget, c config) (*sql.DB, error) {
	if t.path == memoryPath {
		return openSQLiteMemory(c)
	}
	if err := createPrivate(t.path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite3", t.path+"?"+sqliteParams(c))
	if err != nil {
		return nil, err
	}
	c.applyPool(db)
	return db, nil
}

// openSQLiteMemory opens a private in-memory database. It lives as long as
// its one connection, so the pool holds exactly one, forever.
func openSQLiteMemory(c config) (*sql.DB, error) {
	db, err := sql.Open("sqlite3", "file::memory:?"+sqliteParams(c))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db, nil
}

// createPrivate creates the database file readable by its owner only (it
// holds token hashes) unless it exists. SQLite gives the -wal and -shm
// files the same mode.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("create database file: %w", err)
	}
	return f.Close()
}
