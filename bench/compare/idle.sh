#!/usr/bin/env bash
# Idle memory of one build of the server on several Node binaries, start-up flags and environments,
# alternating: `petstore serve` (bin/petstore.cjs, as shipped; server on CPU 0) on the in-memory store.
# Each measured start follows a start and stop of the same command (so its code cache is its own).
# Read from /proc: 1 s after the first answer on /healthz (as `pnpm bench` reads idle RSS), then after
# WARM requests (100 POST and WARM GET /v1/pets?limit=20, one connection at a time) and IDLE seconds at
# rest (IDLE2 seconds too, if set: V8's memory reducer starts after 8 s of low allocation on Node 20 and
# after 30 s on Node 26): VmRSS, its anonymous and file-backed parts, PSS and USS (smaps_rollup), pages on huge pages
# (AnonHugePages, FilePmdMapped) and threads. The medians and spreads of each target's rounds come last.
#
#   bash bench/compare/idle.sh ROUNDS 'LABEL|NODE [FLAGS...]|[VAR=VALUE...]' ...
#   IDLE=30 WARM=200 bash bench/compare/idle.sh 3 '20|/usr/bin/node|' \
#     "26|$(.ci/node-lines fetch 26)/bin/node|" "26-arena2|$(.ci/node-lines fetch 26)/bin/node|MALLOC_ARENA_MAX=2"
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${1:?rounds}; shift
IDLE=${IDLE:-20}
IDLE2=${IDLE2:-}
WARM=${WARM:-200}
TOKEN=compare-admin-token-0123456789abcdef
PET='{"name":"Bench","categoryId":3,"status":"pending"}'
# shellcheck source=seed.sh
. "$(dirname "$0")/seed.sh"
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT

kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
rollup() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/smaps_rollup"; }

# One reading, in kB: rss anon file pss uss anon-huge file-huge threads.
reading() {
  local pid=$1
  echo "$(kb "$pid" VmRSS) $(kb "$pid" RssAnon) $(kb "$pid" RssFile) $(rollup "$pid" Pss)" \
    "$(( $(rollup "$pid" Private_Clean) + $(rollup "$pid" Private_Dirty) ))" \
    "$(rollup "$pid" AnonHugePages) $(rollup "$pid" FilePmdMapped) $(kb "$pid" Threads)"
}

# Starts the server; prints its process id once it answers.
serve() { # port "node flags" "VAR=VALUE ..."
  # shellcheck disable=SC2086
  env PETSTORE_STORE=memory PETSTORE_ADMIN_TOKEN=$TOKEN PORT="$1" HOST=127.0.0.1 PETSTORE_LOG_LEVEL=error $3 \
    taskset -c 0 $2 "$ROOT/packages/server/bin/petstore.cjs" serve > /dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$1/healthz" && break; sleep 0.1; done
  echo "$pid"
}

stop() { kill "$1"; while kill -0 "$1" 2> /dev/null; do sleep 0.1; done; }

measure() { # label "node flags" "VAR=VALUE ..." port
  local label=$1 command=$2 vars=$3 port=$4 pid start idle key
  pid=$(serve "$port" "$command" "$vars")
  curl -s -o /dev/null "http://127.0.0.1:$port/v1/pets"
  stop "$pid"
  pid=$(serve "$port" "$command" "$vars")
  sleep 1
  start=$(reading "$pid")
  key=$(seed "$port" "$TOKEN" "$PET")
  for _ in $(seq 1 "$WARM"); do curl -s -o /dev/null -H "Authorization: Bearer $key" "http://127.0.0.1:$port/v1/pets?limit=20"; done
  sleep "$IDLE"
  idle=$(reading "$pid")
  later=$idle
  [ -n "$IDLE2" ] && { sleep $((IDLE2 - IDLE)); later=$(reading "$pid"); }
  stop "$pid"
  echo "$label $start $idle $later" >> "$RESULTS"
  echo "$label $start $idle $later" | awk -v idle="$IDLE" -v idle2="${IDLE2:-$IDLE}" '{ printf "%-16s 1 s: RSS %5.1f MB (anon %4.1f, file %4.1f, PSS %4.1f, USS %4.1f, huge %d/%d kB, %d threads)  warm + %d s: RSS %5.1f MB (anon %4.1f, file %4.1f, PSS %4.1f, USS %4.1f)  + %d s: RSS %5.1f (anon %4.1f)\n", $1, $2/1024, $3/1024, $4/1024, $5/1024, $6/1024, $7, $8, $9, idle, $10/1024, $11/1024, $12/1024, $13/1024, $14/1024, idle2, $18/1024, $19/1024 }'
}

for round in $(seq 1 "$ROUNDS"); do
  port=18290
  for spec in "$@"; do
    IFS='|' read -r label command vars <<< "$spec"
    echo -n "round $round  "
    measure "$label" "$command" "$vars" $((port++))
  done
done
echo "medians [min–max] of $ROUNDS rounds, MB:"
for spec in "$@"; do
  label=${spec%%|*}
  awk -v l="$label" '$1 == l' "$RESULTS" | /usr/bin/node -e '
    const rows = require("fs").readFileSync(0, "utf8").trim().split("\n").map((r) => r.split(" "))
    const stat = (i) => { const v = rows.map((r) => Number(r[i]) / 1024).sort((a, b) => a - b), n = v.length
      const m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
      return `${m.toFixed(1)} [${v[0].toFixed(1)}–${v[n - 1].toFixed(1)}]` }
    console.log(`${rows[0][0].padEnd(16)} 1 s: RSS ${stat(1)} anon ${stat(2)} file ${stat(3)} PSS ${stat(4)} USS ${stat(5)} | idle: RSS ${stat(9)} anon ${stat(10)} file ${stat(11)} PSS ${stat(12)} USS ${stat(13)} | later: RSS ${stat(17)} anon ${stat(18)} PSS ${stat(20)} USS ${stat(21)}`)'
done
