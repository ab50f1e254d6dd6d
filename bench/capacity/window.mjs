// One measured window of the capacity runs: wrk (bench/capacity/ops.lua) drives a mix of operations
// against one or more server processes, and every counter that says what the requests cost is read
// before and after: the servers' CPU (/proc/<pid>/stat), the load generator's (reaped child CPU), the
// PostgreSQL backends' CPU (the target database's client backends and the server-wide background
// processes: WAL writer, checkpointer, …), PostgreSQL's transactions and tuples (`pg_stat_database`),
// the WAL inserted (`pg_current_wal_insert_lsn()`), Redis's commands (`INFO commandstats`, every command but
// the readings' own) and CPU (`INFO cpu`), the bytes wrk wrote and read, and the whole machine's busy
// time (what no process above accounts for is other load).
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import pg from "pg"
import Redis from "ioredis"
import * as Pg from "../lib/pg.mjs"
import * as Proc from "../lib/proc.mjs"

// The commands our Lua scripts run inside Redis (packages/redis/src/LimiterScripts.ts): counted by
// `INFO commandstats` like any other, but not round trips; every other command is one.
const SCRIPT_INNER = new Set(["hdel", "hmget", "hset", "pexpire", "pttl", "time"])

const SCRIPT = fileURLToPath(new URL("./ops.lua", import.meta.url))

/** A connection to PostgreSQL's maintenance database and one to Redis, kept open for the readings. */
export const observers = async ({ redis = true } = {}) => {
  const db = new pg.Client({ connectionString: Pg.adminUrl() })
  db.on("error", () => {})
  await db.connect()
  let r
  if (redis) {
    r = new Redis(process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: 1 })
    r.on("error", () => {})
  }
  return { db, redis: r, close: async () => { await db.end().catch(() => {}); r?.disconnect() } }
}

const cpuOf = (pids) => {
  let s = 0
  for (const pid of pids) {
    try {
      s += Proc.cpuSeconds(pid)
    } catch {
      // gone meanwhile
    }
  }
  return s
}

/** Counters now: PostgreSQL (for `database`), Redis, the servers' and the machine's CPU. */
const reading = async (obs, { database, pids }) => {
  const out = { server: cpuOf(pids), busy: Proc.machineBusySeconds(), loader: Proc.reapedChildrenCpuSeconds(), self: process.cpuUsage() }
  if (database !== undefined) {
    const { rows: [s] } = await obs.db.query(
      `SELECT coalesce(sum(xact_commit + xact_rollback) FILTER (WHERE datname = $1), 0)::int8 AS xacts,
              coalesce(sum(tup_inserted + tup_updated + tup_deleted) FILTER (WHERE datname = $1), 0)::int8 AS written,
              coalesce(sum(tup_returned) FILTER (WHERE datname = $1), 0)::int8 AS returned,
              coalesce(sum(xact_commit + xact_rollback) FILTER (WHERE datname <> $1 AND datname <> current_database()), 0)::int8 AS others,
              pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::int8 AS wal
       FROM pg_stat_database`,
      [database]
    )
    const { rows } = await obs.db.query("SELECT pid, datname = $1 AS ours FROM pg_stat_activity WHERE datname = $1 OR backend_type <> 'client backend'", [database])
    out.pg = { xacts: Number(s.xacts), written: Number(s.written), returned: Number(s.returned), others: Number(s.others), wal: Number(s.wal) }
    out.pgBackends = new Map(rows.filter((x) => x.ours).map((x) => [x.pid, cpuOf([x.pid])]))
    out.pgAux = new Map(rows.filter((x) => !x.ours).map((x) => [x.pid, cpuOf([x.pid])]))
  }
  if (obs.redis !== undefined) {
    const [commands, cpu, stats] = await Promise.all([obs.redis.info("commandstats"), obs.redis.info("cpu"), obs.redis.info("stats")])
    let calls = 0
    let trips = 0
    for (const m of commands.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (m[1] === "info") continue
      calls += Number(m[2])
      if (!SCRIPT_INNER.has(m[1])) trips += Number(m[2])
    }
    const field = (text, name) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(text)?.[1] ?? Number.NaN)
    out.redis = { calls, trips, cpu: field(cpu, "used_cpu_user") + field(cpu, "used_cpu_sys"), connections: field(stats, "total_connections_received") }
  }
  return out
}

const mapDelta = (a, b) => {
  let s = 0
  for (const [pid, v] of b) s += v - (a.get(pid) ?? 0)
  return s
}

/** Runs wrk once (one thread, `connections`, `seconds`) with `mix` against `url`. */
export const wrk = ({ url, mix, key, connections, seconds, pets = 100, cpu }) =>
  new Promise((resolve, reject) => {
    const argv = ["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", SCRIPT, url]
    const command = cpu === undefined ? argv : ["taskset", "-c", String(cpu), ...argv]
    const child = spawn(command[0], command.slice(1), {
      env: { ...process.env, BENCH_AUTH: `Bearer ${key}`, BENCH_MIX: mix, BENCH_PETS: String(pets) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (out += d))
    child.on("error", reject)
    child.on("close", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("BENCH_JSON "))
      if (code !== 0 || line === undefined) return reject(new Error(`wrk failed (exit ${code}): ${out}`))
      resolve(JSON.parse(line.slice("BENCH_JSON ".length)))
    })
  })

/**
 * One window: wrk against every url at once (the connections split between them), then `settle()`
 * (e.g. until the webhooks of the window's messages arrived), then the deltas per request.
 */
export const measure = async (obs, { urls, mix, key, connections, seconds, pids, database, settle, pets }) => {
  const before = await reading(obs, { database, pids })
  const wall0 = performance.now()
  const runs = await Promise.all(urls.map((url) => wrk({ url, mix, key, connections: Math.max(1, Math.round(connections / urls.length)), seconds, pets })))
  const loadSeconds = (performance.now() - wall0) / 1000
  // `settle` may resolve with the database transactions it made itself, which are not the requests'.
  const settled = settle === undefined ? undefined : await settle(runs.reduce((a, r) => a + r.requests, 0))
  // PostgreSQL's statistics reach pg_stat_database when a backend reports them (at most once a second).
  if (database !== undefined) await new Promise((r) => setTimeout(r, 1_200))
  const after = await reading(obs, { database, pids })
  const wall = (performance.now() - wall0) / 1000
  const n = runs.reduce((a, r) => a + r.requests, 0)
  const per = (x) => (x / n) * 1e6
  const self = (after.self.user + after.self.system - before.self.user - before.self.system) / 1e6
  const result = {
    requests: n,
    rps: n / loadSeconds,
    failed: runs.reduce((a, r) => a + r.errors.connect + r.errors.read + r.errors.write + r.errors.timeout + r.errors.status, 0),
    p50: Math.max(...runs.map((r) => r.latencyMicros.p50)) / 1000,
    p99: Math.max(...runs.map((r) => r.latencyMicros.p99)) / 1000,
    serverMicros: per(after.server - before.server),
    loaderMicros: per(after.loader - before.loader),
    runnerMicros: per(self),
    bytesPerRequest: runs.reduce((a, r) => a + r.bytes + r.written, 0) / n,
    requestBytes: runs.reduce((a, r) => a + r.written, 0) / n,
    responseBytes: runs.reduce((a, r) => a + r.bytes, 0) / n,
    busyCores: (after.busy - before.busy) / wall,
    wall
  }
  if (database !== undefined) {
    Object.assign(result, {
      pgXacts: (after.pg.xacts - before.pg.xacts - (settled?.transactions ?? 0)) / n,
      pgRowsWritten: (after.pg.written - before.pg.written) / n,
      pgRowsRead: (after.pg.returned - before.pg.returned) / n,
      pgOtherXacts: after.pg.others - before.pg.others,
      walBytes: (after.pg.wal - before.pg.wal) / n,
      pgMicros: per(mapDelta(before.pgBackends, after.pgBackends)),
      pgAuxMicros: per(mapDelta(before.pgAux, after.pgAux))
    })
  }
  if (obs.redis !== undefined && before.redis !== undefined) {
    Object.assign(result, {
      redisCommands: (after.redis.calls - before.redis.calls) / n,
      redisRoundTrips: (after.redis.trips - before.redis.trips) / n,
      redisMicros: per(after.redis.cpu - before.redis.cpu),
      // The readings' own connections are kept open: any new one is another client's.
      redisOtherConnections: after.redis.connections - before.redis.connections
    })
  }
  const attributed = result.serverMicros + result.loaderMicros + result.runnerMicros + (result.pgMicros ?? 0) + (result.pgAuxMicros ?? 0) + (result.redisMicros ?? 0)
  result.otherMicros = Math.max(0, per(after.busy - before.busy) - attributed)
  return result
}

export { median } from "../lib/stats.mjs"
