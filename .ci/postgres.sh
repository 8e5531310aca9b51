#!/usr/bin/env bash
# Starts a throwaway PostgreSQL for mcpreg's tests and prints its DSN on the
# last line of stdout (progress goes to stderr):
#
#   export MCPREG_TEST_POSTGRES_DSN="$(.ci/postgres.sh | tail -n1)"
#
# Idempotent: installs Debian's postgresql package when missing, creates the
# cluster once in $MCPREG_PG_DATA, starts it unless it runs, and (re)creates
# the test role and database. The server listens on 127.0.0.1 only; it is
# tuned for speed, not durability (fsync off): test data only.
#
# Settings (environment): MCPREG_PG_PORT (5432), MCPREG_PG_DATA
# (/var/tmp/mcpreg-postgres). The role mcpreg (password mcpreg) has CREATEDB,
# which storetest needs to create a database per test.
set -euo pipefail

port="${MCPREG_PG_PORT:-5432}"
data="${MCPREG_PG_DATA:-/var/tmp/mcpreg-postgres}"
role=mcpreg
password=mcpreg
database=mcpreg

log() { echo "postgres.sh: $*" >&2; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The server refuses to run as root: root runs it as the postgres user.
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

install_postgres() {
	if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
		return
	fi
	log "installing postgresql"
	as_root apt-get update -qq >&2
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
}

init_cluster() {
	if [ -f "$data/PG_VERSION" ]; then
		return
	fi
	log "creating cluster in $data"
	mkdir -p "$data"
	if [ "$(id -u)" -eq 0 ]; then chown postgres: "$data"; fi
	chmod 700 "$data"
	as_owner "$bin/initdb" -D "$data" -U postgres -E UTF8 --locale=C.UTF-8 \
		--auth-local=trust --auth-host=scram-sha-256 >&2
	as_owner tee -a "$data/postgresql.conf" >/dev/null <<CONF
# mcpreg test server (.ci/postgres.sh)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$data'
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
}

start_cluster() {
	if as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
		log "already running"
		return
	fi
	log "starting on 127.0.0.1:$port"
	as_owner "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 start >&2 || {
		tail -n 20 "$data/server.log" >&2
		exit 1
	}
}

psql_admin() {
	as_owner "$bin/psql" -h "$data" -p "$port" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1 "$@"
}

create_role_and_database() {
	psql_admin >&2 <<SQL
SELECT format('CREATE ROLE %I', '$role') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$role')\gexec
ALTER ROLE $role LOGIN CREATEDB PASSWORD '$password';
-- storetest drops its databases WITH (FORCE), which must be able to end
-- an autovacuum worker that happens to be in one.
GRANT pg_signal_backend TO $role;
SELECT format('CREATE DATABASE %I OWNER %I', '$database', '$role') WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$database')\gexec
SQL
}

install_postgres
bin="$(compgen -G '/usr/lib/postgresql/*/bin' | sort -V | tail -n1)"
init_cluster
start_cluster
create_role_and_database
echo "postgres://$role:$password@127.0.0.1:$port/$database?sslmode=disable"
