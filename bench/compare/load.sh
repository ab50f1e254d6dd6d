#!/usr/bin/env bash
# Two built checkouts of the project under the same HTTP load, alternating: `petstore serve` on the
# in-memory store (server on CPU 0), 100 pets, then wrk (CPU 1, 50 connections, 2 s of warm-up and
# 6 s measured) on GET /v1/pets?limit=20 or POST /v1/pets. Prints req/s per round.
#
#   bash bench/compare/load.sh ../before . 4 GET
#   bash bench/compare/load.sh ../before . 4 POST
set -euo pipefail
A=$(cd "$1" && pwd); B=$(cd "$2" && pwd); ROUNDS=${3:-4}; METHOD=${4:-GET}
LUA=$(cd "$(dirname "$0")/.." && pwd)/wrk.lua
TOKEN=compare-admin-token-0123456789abcdef
PET='{"name":"Bench","categoryId":3,"status":"pending"}'

measure() { # root port
  local root=$1 port=$2
  (cd "$root" && PETSTORE_STORE=memory PETSTORE_ADMIN_TOKEN=$TOKEN PORT=$port PETSTORE_LOG_LEVEL=error \
    exec taskset -c 0 node packages/server/dist/bin.js serve > /dev/null 2>&1) &
  local pid=$!
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
  local key
  key=$(curl -s -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"plan":"enterprise","limits":{"perMinute":1000000,"perDay":1000000000}}' \
    "http://127.0.0.1:$port/admin/v1/accounts" | sed 's/.*"key":"\([^"]*\)".*/\1/')
  for _ in $(seq 1 100); do
    curl -s -o /dev/null -X POST -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d "$PET" "http://127.0.0.1:$port/v1/pets"
  done
  local url="http://127.0.0.1:$port/v1/pets?limit=20"
  if [ "$METHOD" = POST ]; then export BENCH_METHOD=POST BENCH_BODY=$PET; url="http://127.0.0.1:$port/v1/pets"; fi
  export BENCH_AUTH="Bearer $key"
  taskset -c 1 wrk -t1 -c50 -d2s -s "$LUA" "$url" > /dev/null
  taskset -c 1 wrk -t1 -c50 -d6s -s "$LUA" "$url" | awk '/Requests\/sec/ {print $2}'
  kill "$pid"; wait "$pid" 2> /dev/null || true
}

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round $METHOD $A $(measure "$A" 18091)"
  echo "round $round $METHOD $B $(measure "$B" 18092)"
done
