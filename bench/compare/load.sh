#!/usr/bin/env bash
# Two built checkouts of the project under the same HTTP load, alternating: `petstore serve` (server
# on CPU 0), 100 pets, then wrk (CPU 1, 50 connections, 2 s of warm-up and 6 s measured) on
# GET /v1/pets?limit=20 or POST /v1/pets. Prints, per round and checkout, req/s and the server's CPU
# per request (µs, from /proc: user + system time over the measured 6 s).
#
#   bash bench/compare/load.sh ../before . 4 GET
#   bash bench/compare/load.sh ../before . 4 POST
#   BENCH_STORE=sqlite bash bench/compare/load.sh ../before . 4 POST
#
# BENCH_STORE: memory (default); sqlite (a fresh file per run); postgres (a fresh database per run at
# BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres, dropped after); or
# postgres-redis (the same, with the Redis limiter at BENCH_REDIS_URL, default redis://127.0.0.1:6379,
# under a key prefix of the run's own, deleted after). Both checkouts run on the same Node: the `node`
# first on PATH, resolved once to its binary (a package manager's shim would not pass signals on).
set -euo pipefail
A=$(cd "$1" && pwd); B=$(cd "$2" && pwd); ROUNDS=${3:-4}; METHOD=${4:-GET}
STORE=${BENCH_STORE:-memory}
PG=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
REDIS=${BENCH_REDIS_URL:-redis://127.0.0.1:6379}
NODE=$(node -p process.execPath)
LUA=$(cd "$(dirname "$0")/.." && pwd)/wrk.lua
TOKEN=compare-admin-token-0123456789abcdef
PET='{"name":"Bench","categoryId":3,"status":"pending"}'
TICKS=$(getconf CLK_TCK)
# shellcheck source=seed.sh
. "$(dirname "$0")/seed.sh"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

measure() { # root port
  local root=$1 port=$2 run="petstore_compare_$$_$RANDOM" store_env=()
  case "$STORE" in
    memory) store_env=(PETSTORE_STORE=memory) ;;
    sqlite) store_env=(PETSTORE_STORE=sqlite "PETSTORE_DATABASE=$SCRATCH/$run.db") ;;
    postgres | postgres-redis)
      psql "$PG" -qAtc "CREATE DATABASE $run" > /dev/null
      store_env=(PETSTORE_STORE=sqlite "PETSTORE_DATABASE=${PG%/*}/$run")
      if [ "$STORE" = postgres-redis ]; then store_env+=("PETSTORE_REDIS_URL=$REDIS" "PETSTORE_REDIS_PREFIX=$run:"); fi ;;
    *) echo "BENCH_STORE must be memory, sqlite, postgres or postgres-redis" >&2; exit 2 ;;
  esac
  (cd "$root" && exec env "${store_env[@]}" PETSTORE_ADMIN_TOKEN=$TOKEN PORT=$port PETSTORE_LOG_LEVEL=error \
    taskset -c 0 "$NODE" packages/server/dist/bin.js serve > /dev/null 2>&1) &
  local pid=$!
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
  local key
  key=$(seed "$port" "$TOKEN" "$PET")
  local url="http://127.0.0.1:$port/v1/pets?limit=20"
  if [ "$METHOD" = POST ]; then export BENCH_METHOD=POST BENCH_BODY=$PET; url="http://127.0.0.1:$port/v1/pets"; fi
  export BENCH_AUTH="Bearer $key"
  taskset -c 1 wrk -t1 -c50 -d2s -s "$LUA" "$url" > /dev/null
  local before after rps
  before=$(cpu_ticks "$pid")
  rps=$(taskset -c 1 wrk -t1 -c50 -d6s -s "$LUA" "$url" | awk '/Requests\/sec/ {print $2}')
  after=$(cpu_ticks "$pid")
  kill "$pid"; wait "$pid" 2> /dev/null || true
  if [ "$STORE" = postgres ] || [ "$STORE" = postgres-redis ]; then
    psql "$PG" -qAtc "DROP DATABASE $run WITH (FORCE)" > /dev/null
    if [ "$STORE" = postgres-redis ]; then
      redis-cli -u "$REDIS" --scan --pattern "$run:*" | xargs -r redis-cli -u "$REDIS" unlink > /dev/null
    fi
  fi
  awk -v rps="$rps" -v ticks=$((after - before)) -v hz="$TICKS" \
    'BEGIN { printf "%s req/s, %.1f µs CPU/req", rps, ticks / hz / (rps * 6) * 1e6 }'
}

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round $STORE $METHOD $A $(measure "$A" 18091)"
  echo "round $round $STORE $METHOD $B $(measure "$B" 18092)"
done
