package store

import (
	"database/sql"
	"time"
)

// Option tunes Open.
type Option func(*config)

type config struct {
	maxOpen     int
	maxIdle     int
	maxLifetime time.Duration
	maxIdleTime time.Duration
	busyTimeout time.Duration
	txAttempts  int
}

// Pool defaults. PostgreSQL: 20 open connections, 10 idle, each replaced
// after 30 minutes or 5 idle minutes. SQLite: 8 connections kept open for
// good (WAL lets readers run beside the one writer), busy timeout 10s.
// Transactions are tried at most 5 times on lock contention.
const (
	DefaultPostgresMaxOpenConns    = 20
	DefaultPostgresMaxIdleConns    = 10
	DefaultPostgresConnMaxLifetime = 30 * time.Minute
	DefaultPostgresConnMaxIdleTime = 5 * time.Minute
	DefaultSQLiteMaxOpenConns      = 8
	DefaultSQLiteBusyTimeout       = 10 * time.Second
	DefaultTxAttempts              = 5
)

func newConfig(dialect string, opts []Option) config {
	c := config{
		maxOpen:     DefaultSQLiteMaxOpenConns,
		maxIdle:     DefaultSQLiteMaxOpenConns,
		busyTimeout: DefaultSQLiteBusyTimeout,
		txAttempts:  DefaultTxAttempts,
	}
	if dialect == DialectPostgres {
		c.maxOpen, c.maxIdle = DefaultPostgresMaxOpenConns, DefaultPostgresMaxIdleConns
		c.maxLifetime, c.maxIdleTime = DefaultPostgresConnMaxLifetime, DefaultPostgresConnMaxIdleTime
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

func (c config) applyPool(db *sql.DB) {
	db.SetMaxOpenConns(c.maxOpen)
	db.SetMaxIdleConns(c.maxIdle)
	db.SetConnMaxLifetime(c.maxLifetime)
	db.SetConnMaxIdleTime(c.maxIdleTime)
}

// WithMaxOpenConns limits the open connections (0 means no limit).
func WithMaxOpenConns(n int) Option { return func(c *config) { c.maxOpen = n } }

// WithMaxIdleConns sets how many idle connections the pool keeps.
func WithMaxIdleConns(n int) Option { return func(c *config) { c.maxIdle = n } }

// WithConnMaxLifetime closes connections older than d (0 keeps them).
func WithConnMaxLifetime(d time.Duration) Option { return func(c *config) { c.maxLifetime = d } }

// WithConnMaxIdleTime closes connections idle for longer than d (0 keeps them).
func WithConnMaxIdleTime(d time.Duration) Option { return func(c *config) { c.maxIdleTime = d } }

// WithBusyTimeout sets how long an SQLite statement waits for a lock held
// by another connection before failing as busy.
func WithBusyTimeout(d time.Duration) Option { return func(c *config) { c.busyTimeout = d } }

// WithTxAttempts sets how often WithTx tries a transaction that fails on
// lock contention (at least 1).
func WithTxAttempts(n int) Option { return func(c *config) { c.txAttempts = max(n, 1) } }
