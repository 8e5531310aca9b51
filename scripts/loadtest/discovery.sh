#!/usr/bin/env bash
# Discovery load test with wrk (Debian package `wrk`): seeds 5,000 approved
# servers on a fresh SQLite file, then measures, for a host token, resolve
# (first page; and the full fleet as 5 pages of 1,000), a 304 revalidation,
# /v0.1/servers?limit=30 and one /v0.1 version; after each, a plain net/http
# handler serving a fixed byte slice of the same size (the ceiling).
# Loopback only; bounded in time.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)"; exit 1; }
work=$(mktemp -d); trap 'kill $pid $cpid 2>/dev/null || true; rm -rf "$work"' EXIT
cpid=
go build -o "$work/mcpregd" ./cmd/mcpregd
go build -o "$work/ceiling" ./scripts/loadtest/ceiling
export MCPREG_DB="sqlite://$work/load.db" MCPREG_LOG_LEVEL=warn MCPREG_DISCOVERY_KEY="$work/discovery.key"
owner=$("$work/mcpregd" token create --name load-owner --role owner --namespace io.github.load | tail -n1)
reviewer=$("$work/mcpregd" token create --name load-reviewer --role reviewer | tail -n1)
host=$("$work/mcpregd" token create --name load-host --role host | tail -n1)
"$work/mcpregd" serve --http-addr 127.0.0.1:18080 --grpc-addr 127.0.0.1:19090 --metrics-addr 127.0.0.1:19091 --scan-interval 0 &
pid=$!
for _ in $(seq 50); do curl -sf http://127.0.0.1:18080/healthz >/dev/null && break; sleep 0.2; done
go run ./scripts/loadtest -server http://127.0.0.1:18080 -token "$owner" -approve-token "$reviewer" -servers "${SERVERS:-5000}"
base=http://127.0.0.1:18080
dur=${DURATION:-10s}
auth="Authorization: Bearer $host"

# ceiling SIZE: the plain net/http handler serving SIZE bytes.
ceiling() {
	"$work/ceiling" -addr 127.0.0.1:18090 -size "$1" & cpid=$!
	sleep 0.3
	echo "   ceiling, $1 bytes:"
	wrk -t2 -c32 -d"$dur" --latency http://127.0.0.1:18090/ | grep -E "Requests/sec|^ +99%"
	kill $cpid; wait $cpid 2>/dev/null || true
}

# bench NAME URL: wrk against the service, then the ceiling at the same
# response size.
bench() {
	local name=$1 url=$2 size
	size=$(curl -s -H "$auth" "$url" | wc -c)
	echo "== $name ($size bytes)"
	wrk -t2 -c32 -d"$dur" --latency -H "$auth" "$url" | grep -E "Requests/sec|^ +99%|Non-2xx"
	ceiling "$size"
}

bench "resolve, first page (500)" "$base/v1/discovery/servers"
etag=$(curl -sI -H "$auth" "$base/v1/discovery/servers" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')
echo "== 304 revalidation (If-None-Match: $etag)"
wrk -t2 -c32 -d"$dur" --latency -H "$auth" -H "If-None-Match: $etag" "$base/v1/discovery/servers" | grep -E "Requests/sec|^ +99%|Non-2xx"
ceiling 0
# Full fleet: 5 pages of 1,000, requested in turn.
urls=("$base/v1/discovery/servers?pageSize=1000")
tok=
for _ in 1 2 3 4; do
	tok=$(curl -s -H "$auth" "${urls[-1]}" | python3 -c 'import sys,json,base64;print(json.loads(base64.b64decode(json.load(sys.stdin)["payload"]))["nextPageToken"])')
	urls+=("$base/v1/discovery/servers?pageSize=1000&pageToken=$tok")
done
printf '%s\n' "${urls[@]}" | sed 's#^http://127.0.0.1:18080##' > "$work/pages.txt"
cat > "$work/pages.lua" <<LUA
paths = {}
for line in io.lines("$work/pages.txt") do paths[#paths + 1] = line end
i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i], {["Authorization"] = "Bearer $host"})
end
LUA
echo "== resolve, full fleet as 5 pages of 1,000 (full resolves/s = requests/s / 5)"
wrk -t2 -c32 -d"$dur" --latency -s "$work/pages.lua" "$base" | grep -E "Requests/sec|^ +99%|Non-2xx"
ceiling "$(curl -s -H "$auth" "${urls[0]}" | wc -c)"
bench "/v0.1/servers?limit=30" "$base/v0.1/servers?limit=30"
bench "/v0.1 one version" "$base/v0.1/servers/io.github.load%2Fserver-02500/versions/1.0.0"
