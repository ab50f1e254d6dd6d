#!/usr/bin/env sh
# The bench's own set-up: the npm packages come with `pnpm run bench:install` (fastify, @fastify/rate-limit,
# autocannon, ...; `pnpm bench` runs it); wrk, the preferred load generator (C, microsecond latencies), is Debian's package.
# Without wrk, bench/run.mjs falls back to autocannon (latencies in whole milliseconds).
set -eu
if command -v wrk >/dev/null 2>&1; then
  echo "wrk is installed: $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk
