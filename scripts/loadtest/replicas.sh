#!/usr/bin/env bash
# Resolve throughput with 1 and with 3 replicas on one PostgreSQL, with wrk
# (Debian package `wrk`) and the same data as discovery.sh: 5,000 approved
# servers seeded through the REST API. MCPREG_DB names an empty PostgreSQL
# database. With 3 replicas, three wrk processes run at once, one per
# replica (as a load balancer would spread them), with the same total of
# connections; the figure is their sum. Loopback only; bounded in time.
#
#   MCPREG_DB=postgres://USER:PASS@127.0.0.1:5432/EMPTYDB scripts/loadtest/replicas.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)"; exit 1; }
: "${MCPREG_DB:?set MCPREG_DB to an empty PostgreSQL database}"
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/mcpregd" ./cmd/mcpregd
# A 1h TTL: answers are re-signed each quarter (15 min), not during a run.
export MCPREG_LOG_LEVEL=warn MCPREG_DISCOVERY_KEY="$work/discovery.key" MCPREG_DISCOVERY_TTL=1h
"$work/mcpregd" migrate up
"$work/mcpregd" discovery keygen --out "$MCPREG_DISCOVERY_KEY" >/dev/null
owner=$("$work/mcpregd" token create --name load-owner --role owner --namespace io.github.load | tail -n1)
reviewer=$("$work/mcpregd" token create --name load-reviewer --role reviewer | tail -n1)
host=$("$work/mcpregd" token create --name load-host --role host | tail -n1)
dur=${DURATION:-10s}
auth="Authorization: Bearer $host"

# replica N: serve on 1808N (REST), 1909N (gRPC), 1709N (metrics).
replica() {
	"$work/mcpregd" serve --migrate=false --replica "r$1" --scan-interval 0 \
		--http-addr "127.0.0.1:1808$1" --grpc-addr "127.0.0.1:1909$1" --metrics-addr "127.0.0.1:1709$1" &
	pids+=($!)
	for _ in $(seq 100); do curl -sf "http://127.0.0.1:1808$1/readyz" >/dev/null && break; sleep 0.2; done
	curl -sf -H "$auth" "http://127.0.0.1:1808$1/v1/discovery/servers" >/dev/null # build its index
}

rps() { awk '/Requests\/sec/ {print $2}'; }

# etag N: the ETag replica N gives the first page now (answers are
# re-signed each quarter of the discovery TTL, so take it just before use).
etag() {
	curl -s -D - -o /dev/null -H "$auth" "http://127.0.0.1:1808$1/v1/discovery/servers" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}'
}

replica 1
# SEEDED=1 reuses a database seeded by an earlier run.
[ "${SEEDED:-}" = 1 ] || go run ./scripts/loadtest -server http://127.0.0.1:18081 -token "$owner" -approve-token "$reviewer" -servers "${SERVERS:-5000}"

for what in "first page" "304 revalidation"; do
	hdr=()
	[ "$what" = "304 revalidation" ] && hdr=(-H "If-None-Match: $(etag 1)")
	one=$(wrk -t2 -c33 -d"$dur" -H "$auth" "${hdr[@]}" http://127.0.0.1:18081/v1/discovery/servers | rps)
	echo "== resolve, $what: 1 replica: $one rps"
done

replica 2
replica 3
echo "   ETags of the three replicas: $(etag 1) $(etag 2) $(etag 3)"
for what in "first page" "304 revalidation"; do
	hdr=()
	[ "$what" = "304 revalidation" ] && hdr=(-H "If-None-Match: $(etag 1)")
	loads=()
	for i in 1 2 3; do
		wrk -t1 -c11 -d"$dur" -H "$auth" "${hdr[@]}" "http://127.0.0.1:1808$i/v1/discovery/servers" | rps > "$work/rps$i" &
		loads+=($!)
	done
	wait "${loads[@]}"
	echo "== resolve, $what: 3 replicas: $(cat "$work"/rps[123] | paste -sd+ | bc) rps ($(cat "$work"/rps[123] | paste -sd' ') per replica)"
done
