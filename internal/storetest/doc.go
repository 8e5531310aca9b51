// Package storetest gives tests fresh, migrated, isolated mcpreg databases
// on every dialect that can run here: SQLite always (a file in the test's
// temp dir) and PostgreSQL when MCPREG_TEST_POSTGRES_DSN names a server
// (a new database per test, created with the DSN's role, which needs
// CREATEDB, and dropped afterwards). .ci/postgres.sh starts such a server
// and prints its DSN.
//
// Without the DSN the PostgreSQL suites are skipped with a notice on stderr,
// unless MCPREG_TEST_REQUIRE_ALL=1, which turns the missing DSN into a test
// failure (set it in CI).
package storetest
