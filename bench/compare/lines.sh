#!/usr/bin/env bash
# One build of the server on several Node binaries under the same load, alternating: `petstore serve`
# (bin/petstore.cjs, as shipped; server on CPU 0) on the in-memory store, 100 pets, then wrk (CPU 1,
# 50 connections): GET /v1/pets?limit=20 (2 s of warm-up, 6 s measured), then POST /v1/pets (6 s).
# Each measured start follows a start and stop of the same Node and flags (so its code cache is its own).
# Prints, per round and Node: idle RSS (VmRSS 1 s after the server answers, before any load), req/s
# and p99 latency of GET and POST, and peak RSS (VmHWM at the end). The medians of each Node's rounds come last.
#
#   bash bench/compare/lines.sh ROUNDS LABEL=/path/to/node[@NODE_OPTIONS] ...
#   bash bench/compare/lines.sh 5 20=/usr/bin/node 26=$(.ci/node-lines fetch 26)/bin/node \
#     26-v8default=$(.ci/node-lines fetch 26)/bin/node@--max-semi-space-size=0
#   bash bench/compare/lines.sh 3 "26=$N26" "26-arenas=env MALLOC_ARENA_MAX=2 $N26 --v8-pool-size=2"
# (a command with flags or `env VAR=VALUE` before it: quoted, as one argument)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${1:?rounds}; shift
LUA=$ROOT/bench/wrk.lua
TOKEN=compare-admin-token-0123456789abcdef
PET='{"name":"Bench","categoryId":3,"status":"pending"}'
# shellcheck source=seed.sh
. "$(dirname "$0")/seed.sh"
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT

# The p99 latency (µs) of wrk's output (bench/wrk.lua's BENCH_JSON line).
p99() { sed -n 's/.*"p99":\([0-9]*\).*/\1/p' <<< "$1"; }

kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

# Starts the server; prints its process id once it answers.
serve() { # node options port (node: its path, possibly with flags after it or `env VAR=VALUE` before it)
  # shellcheck disable=SC2086
  env PETSTORE_STORE=memory PETSTORE_ADMIN_TOKEN=$TOKEN PORT="$3" HOST=127.0.0.1 PETSTORE_LOG_LEVEL=error \
    NODE_OPTIONS="$2" taskset -c 0 $1 "$ROOT/packages/server/bin/petstore.cjs" serve > /dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$3/healthz" && break; sleep 0.1; done
  echo "$pid"
}

measure() { # label node options port
  local label=$1 node=$2 options=$3 port=$4 pid
  # The bundle's code cache is V8's, of one Node and one set of flags: a start and a stop first, so that
  # the measured start finds one of its own (as a deployment does after its first start).
  pid=$(serve "$node" "$options" "$port")
  curl -s -o /dev/null "http://127.0.0.1:$port/v1/pets"
  kill "$pid"; while kill -0 "$pid" 2> /dev/null; do sleep 0.1; done
  pid=$(serve "$node" "$options" "$port")
  sleep 1
  local idle key get post peak out getp99 postp99
  idle=$(kb "$pid" VmRSS)
  key=$(seed "$port" "$TOKEN" "$PET")
  export BENCH_AUTH="Bearer $key"
  taskset -c 1 wrk -t1 -c50 -d2s -s "$LUA" "http://127.0.0.1:$port/v1/pets?limit=20" > /dev/null
  out=$(taskset -c 1 wrk -t1 -c50 -d6s -s "$LUA" "http://127.0.0.1:$port/v1/pets?limit=20")
  get=$(awk '/Requests\/sec/ {print $2}' <<< "$out"); getp99=$(p99 "$out")
  out=$(BENCH_METHOD=POST BENCH_BODY=$PET taskset -c 1 wrk -t1 -c50 -d6s -s "$LUA" "http://127.0.0.1:$port/v1/pets")
  post=$(awk '/Requests\/sec/ {print $2}' <<< "$out"); postp99=$(p99 "$out")
  peak=$(kb "$pid" VmHWM)
  kill "$pid"; while kill -0 "$pid" 2> /dev/null; do sleep 0.1; done
  echo "$label $idle $get $post $peak $getp99 $postp99" >> "$RESULTS"
  printf '%-14s idle %4d MB  GET %8.0f req/s (p99 %6.2f ms)  POST %8.0f req/s (p99 %6.2f ms)  peak %4d MB\n' "$label" $((idle / 1024)) "$get" \
    "$(bc <<< "scale=2; $getp99 / 1000")" "$post" "$(bc <<< "scale=2; $postp99 / 1000")" $((peak / 1024))
}

for round in $(seq 1 "$ROUNDS"); do
  port=18190
  for spec in "$@"; do
    label=${spec%%=*}; rest=${spec#*=}; node=${rest%%@*}; options=""
    [ "$rest" != "$node" ] && options=${rest#*@}
    echo -n "round $round  "
    measure "$label" "$node" "$options" $((port++))
  done
done
echo "medians of $ROUNDS rounds:"
for spec in "$@"; do
  label=${spec%%=*}
  awk -v l="$label" '$1 == l' "$RESULTS" | node -e '
    const rows = require("fs").readFileSync(0, "utf8").trim().split("\n").map((r) => r.split(" "))
    const med = (i) => { const v = rows.map((r) => Number(r[i])).sort((a, b) => a - b), n = v.length; return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2 }
    console.log(`${rows[0][0].padEnd(14)} idle ${(med(1) / 1024).toFixed(1)} MB  GET ${med(2).toFixed(0)} req/s (p99 ${(med(5) / 1000).toFixed(2)} ms)  POST ${med(3).toFixed(0)} req/s (p99 ${(med(6) / 1000).toFixed(2)} ms)  peak ${(med(4) / 1024).toFixed(1)} MB`)'
done
