// Package store opens mcpreg's database (SQLite or PostgreSQL), applies the
// embedded goose migrations, and runs ent transactions with bounded retries
// on lock contention. It holds no business logic: the registry's use-cases
// work on the ent client it hands out.
//
// SQLite is the single-machine default. Every transaction on it starts with
// BEGIN IMMEDIATE and so holds the database write lock from its first
// statement; that serialises writers (the audit chain's appends among them)
// while WAL lets readers go on. That is also why ent's ForUpdate/ForShare
// (generated from ent/template/sqlock.tmpl) add no clause on SQLite, which has
// no row locks: the write lock is stronger. PostgreSQL serves several
// replicas; there row locks (SELECT ... FOR UPDATE) do the serialising.
package store
