#!/usr/bin/env bash
# Load test of the running service over REST with wrk (Debian package `wrk`):
# seeds 5,000 servers on a fresh SQLite file, then measures get-version and
# list-versions (30 per page). Loopback only; bounded in time.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)"; exit 1; }
work=$(mktemp -d); trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/mcpregd" ./cmd/mcpregd
export MCPREG_DB="sqlite://$work/load.db" MCPREG_LOG_LEVEL=warn
owner=$("$work/mcpregd" token create --name load-owner --role owner --namespace io.github.load | tail -n1)
reader=$("$work/mcpregd" token create --name load-reader --role reviewer | tail -n1)
"$work/mcpregd" serve --http-addr 127.0.0.1:18080 --grpc-addr 127.0.0.1:19090 --metrics-addr 127.0.0.1:19091 &
pid=$!
for _ in $(seq 50); do curl -sf http://127.0.0.1:18080/healthz >/dev/null && break; sleep 0.2; done
go run ./scripts/loadtest -server http://127.0.0.1:18080 -token "$owner" -servers "${SERVERS:-5000}"
dur=${DURATION:-15s}
echo "== GET one version (with snapshot and pins)"
wrk -t2 -c16 -d"$dur" -H "Authorization: Bearer $reader" http://127.0.0.1:18080/v1/servers/io.github.load/server-02500/versions/1.0.0
echo "== GET list versions, 30 per page"
wrk -t2 -c16 -d"$dur" -H "Authorization: Bearer $reader" "http://127.0.0.1:18080/v1/versions?pageSize=30"
echo "== GET list servers, 30 per page, text query"
wrk -t2 -c16 -d"$dur" -H "Authorization: Bearer $reader" "http://127.0.0.1:18080/v1/servers?pageSize=30&query=server-01"
