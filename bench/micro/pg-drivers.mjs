// PostgreSQL driver comparison for the pet store's database work: postgres.js (porsager), pg
// (node-postgres) with named prepared statements, and @effect/sql-pg run through a ManagedRuntime.
//
//   node bench/micro/pg-drivers.mjs [--seconds 5] [--rounds 3] [--concurrency 32] [--pool 10]
//                                   [--warmup 0.3] [--drivers postgres,pg,effect] [--url postgres://…]
//
// It creates its own database (petstore_drivers_<random>) through the `postgres` database and drops
// it at the end, also on error, SIGINT/SIGTERM or when the watchdog fires. Each round runs every
// workload for every driver (driver order rotated per round), `--concurrency` loops each awaiting
// its own query against a pool of `--pool` connections, for `--seconds` after `--warmup` seconds
// (plus one 1 s warm-up of every driver and workload before the first round, for the JIT):
//   insert1  one-row INSERT … RETURNING id, autocommit (one durable commit per row)
//   select1  SELECT by primary key of a random seeded id
//   page     keyset page: WHERE status=$1 AND id>$2 ORDER BY id LIMIT 21
//   batch64  one INSERT … SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]) of 64 rows
// The table is reset to its 10,000 seeded rows before any block that follows a write block.
// Reported: median over rounds of throughput, p50/p99 latency (per-op hrtime), the Node process's
// CPU time per op (process.cpuUsage), the CPU time per op of the PostgreSQL backends serving the
// bench database (/proc, when the server is local), and how many cores other processes kept busy
// meanwhile (noise; PostgreSQL's background processes count there). batch64 throughput and CPU are
// per row.
// Extra variants for --drivers: `pg-unnamed` (pg without statement names: separates the cost of
// unnamed statements; @effect/sql-pg 4 names and caches its statements per connection, as `pg`
// does here) and `postgres-nopipe` (postgres.js without pipelining, see makePostgresJs).
import { PgClient, PgTypes } from "@effect/sql-pg"
import { ManagedRuntime, Redacted, Result } from "effect"
import os from "node:os"
import { parseArgs } from "node:util"
import pg from "pg"
import postgres from "postgres"
import * as Proc from "../lib/proc.mjs"

const { values: opts } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    concurrency: { type: "string", default: "32" },
    pool: { type: "string", default: "10" },
    warmup: { type: "string", default: "0.3" },
    drivers: { type: "string", default: "postgres,pg,effect" },
    url: { type: "string", default: process.env.PGBENCH_URL ?? "postgres://postgres@127.0.0.1:5432" }
  }
})
const SECONDS = Number(opts.seconds)
const ROUNDS = Number(opts.rounds)
const CONCURRENCY = Number(opts.concurrency)
const POOL = Number(opts.pool)
const WARMUP = Number(opts.warmup)
const SEED = 10_000
const BATCH = 64
const STATUSES = ["available", "pending", "sold"]
const WORKLOADS = ["select1", "page", "insert1", "batch64"]
const WRITES = new Set(["insert1", "batch64"])

const log = (...xs) => console.error(...xs)
const urlFor = (database) => {
  const u = new URL(opts.url)
  u.pathname = `/${database}`
  return u.toString()
}
const DB = `petstore_drivers_${Math.random().toString(36).slice(2, 10)}`
const DB_URL = urlFor(DB)

// --- inputs (prepared up front so the harness costs the same for every driver) -----------------------
const randInt = (n) => Math.floor(Math.random() * n)
const randomId = () => 1 + randInt(SEED)
const randomStatus = () => STATUSES[randInt(STATUSES.length)]
const randomCategory = () => 1 + randInt(50)
let nameCounter = 0
const batches = Array.from({ length: 32 }, (_, b) => ({
  names: Array.from({ length: BATCH }, (_, i) => `batch-${b}-${i}`),
  categories: Array.from({ length: BATCH }, randomCategory),
  statuses: Array.from({ length: BATCH }, randomStatus)
}))
let batchCounter = 0
const nextBatch = () => batches[batchCounter++ & 31]

// Light result checks, the same for each driver (they also prove int8 comes back as a number).
const checkOne = (rows) => {
  if (rows.length !== 1 || typeof rows[0].id !== "number") throw new Error(`expected one row with a numeric id, got ${JSON.stringify(rows)}`)
}
const checkPage = (rows) => {
  if (rows.length > 21 || (rows.length > 0 && typeof rows[0].category_id !== "number")) throw new Error("bad page")
}
const checkBatch = (rows) => {
  if (rows.length !== BATCH || typeof rows[0].id !== "number") throw new Error("bad batch")
}

// --- SQL text (pg and pg-unnamed) ----------------------------------------------------------------------
const SQL = {
  insert1: "INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING id",
  select1: "SELECT id, name, category_id, status FROM pets WHERE id = $1",
  page: "SELECT id, name, category_id, status FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT 21",
  batch64:
    "INSERT INTO pets (name, category_id, status) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]) RETURNING id"
}

// int8 (bigserial ids, category_id) comes back as a string from both pg and postgres.js by default.
// The ids stay far below 2^53 here, so the parsers turn them into numbers.
const pgTypes = {
  getTypeParser: (oid, format) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format))
}
// @effect/sql-pg 4 speaks PostgreSQL's binary format through codecs of its own (int8 as a bigint):
// its client's registry reads int8 as a number instead (and still writes a bigint or a number).
const effectTypes = PgTypes.makeRegistry()
effectTypes.register(PgTypes.OID.int8, {
  decode: (bytes) => Result.succeed(Number(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigInt64(0))),
  encode: (value) => {
    const bytes = new Uint8Array(8)
    new DataView(bytes.buffer).setBigInt64(0, BigInt(value))
    return Result.succeed(bytes)
  }
})

// --- drivers: make(applicationName) resolves to { ops: { [workload]: () => Promise }, close } -----------
// postgres.js pipelines queries onto busy connections when more than `max` are in flight (up to
// max_pipeline each, default 100). In 3.4.9 that path costs O(queries so far): its connection Queue's
// remove() scans an array that grows by one slot per query (src/queue.js + move() in src/index.js),
// so CPU per query keeps rising under sustained load. `postgres-nopipe` (max_pipeline: 0) queues
// excess queries in the pool instead, as pg does.
const makePostgresJs = (pipeline) => async (app) => {
  const sql = postgres(DB_URL, {
    max: POOL,
    connection: { application_name: app },
    prepare: true, // the default: named statements, cached per connection by query text
    ...(pipeline ? {} : { max_pipeline: 0 }),
    onnotice: () => {},
    types: { int8: { to: 20, from: [20], parse: (x) => Number(x), serialize: (x) => String(x) } }
  })
  return {
    ops: {
      insert1: async () =>
        checkOne(
          await sql`INSERT INTO pets (name, category_id, status) VALUES (${`pet-${nameCounter++}`}, ${randomCategory()}, ${randomStatus()}) RETURNING id`
        ),
      select1: async () => checkOne(await sql`SELECT id, name, category_id, status FROM pets WHERE id = ${randomId()}`),
      page: async () =>
        checkPage(
          await sql`SELECT id, name, category_id, status FROM pets WHERE status = ${randomStatus()} AND id > ${randInt(SEED - 100)} ORDER BY id LIMIT 21`
        ),
      batch64: async () => {
        const b = nextBatch()
        checkBatch(
          await sql`INSERT INTO pets (name, category_id, status) SELECT * FROM unnest(${b.names}::text[], ${b.categories}::bigint[], ${b.statuses}::text[]) RETURNING id`
        )
      }
    },
    close: () => sql.end({ timeout: 2 })
  }
}

const makePg = (named) => async (app) => {
  const pool = new pg.Pool({ connectionString: DB_URL, max: POOL, types: pgTypes, application_name: app })
  pool.on("error", () => {}) // idle-client errors (e.g. the forced DROP DATABASE at the end)
  // A `name` makes pg prepare the statement once per connection and then only Bind/Execute it.
  const q = named
    ? (name, values) => pool.query({ name, text: SQL[name], values })
    : (name, values) => pool.query(SQL[name], values)
  return {
    ops: {
      insert1: async () => checkOne((await q("insert1", [`pet-${nameCounter++}`, randomCategory(), randomStatus()])).rows),
      select1: async () => checkOne((await q("select1", [randomId()])).rows),
      page: async () => checkPage((await q("page", [randomStatus(), randInt(SEED - 100)])).rows),
      batch64: async () => {
        const b = nextBatch()
        checkBatch((await q("batch64", [b.names, b.categories, b.statuses])).rows)
      }
    },
    close: () => pool.end()
  }
}

// Every op is its own fiber run by the ManagedRuntime (as the server forks one fiber per request), so
// the cost includes building the Statement, its span, Effect.scoped and the pool acquire/release.
const makeEffect = async (app) => {
  const runtime = ManagedRuntime.make(
    PgClient.layer({ url: Redacted.make(DB_URL), maxConnections: POOL, types: effectTypes, applicationName: app })
  )
  const sql = await runtime.runPromise(PgClient.PgClient)
  const run = (effect) => runtime.runPromise(effect)
  return {
    ops: {
      insert1: async () =>
        checkOne(
          await run(
            sql`INSERT INTO pets (name, category_id, status) VALUES (${`pet-${nameCounter++}`}, ${randomCategory()}, ${randomStatus()}) RETURNING id`
          )
        ),
      select1: async () => checkOne(await run(sql`SELECT id, name, category_id, status FROM pets WHERE id = ${randomId()}`)),
      page: async () =>
        checkPage(
          await run(
            sql`SELECT id, name, category_id, status FROM pets WHERE status = ${randomStatus()} AND id > ${randInt(SEED - 100)} ORDER BY id LIMIT 21`
          )
        ),
      // A JS array interpolated into the template is ONE parameter (sql.in would expand it).
      batch64: async () => {
        const b = nextBatch()
        checkBatch(
          await run(
            sql`INSERT INTO pets (name, category_id, status) SELECT * FROM unnest(${b.names}::text[], ${b.categories}::bigint[], ${b.statuses}::text[]) RETURNING id`
          )
        )
      }
    },
    close: () => runtime.dispose()
  }
}

const DRIVERS = {
  postgres: { label: "postgres.js 3.4", make: makePostgresJs(true) },
  "postgres-nopipe": { label: "postgres.js 3.4 (max_pipeline 0)", make: makePostgresJs(false) },
  pg: { label: "pg 8 (named prepared)", make: makePg(true) },
  "pg-unnamed": { label: "pg 8 (unnamed)", make: makePg(false) },
  effect: { label: "@effect/sql-pg 4.0", make: makeEffect }
}

// --- measurement ------------------------------------------------------------------------------------------
let stopAll = false

// CPU seconds of the PostgreSQL backends serving the measured driver, per pid (gone or unreadable
// pids are left out; none readable, e.g. a remote server, gives NaN).
let backendPids = []
const backendCpu = () => {
  const cpu = new Map()
  for (const pid of backendPids) {
    try {
      cpu.set(pid, Proc.cpuSeconds(pid))
    } catch {
      // the connection closed, or /proc is not the server's
    }
  }
  return cpu
}
const backendCpuDelta = (before, after) => {
  if (before.size === 0) return Number.NaN
  let sum = 0
  for (const [pid, s] of after) if (before.has(pid)) sum += s - before.get(pid)
  return sum
}

/**
 * Runs `op` in CONCURRENCY loops for `seconds`; returns ops, elapsed ns, per-op latencies (ns), this
 * process's CPU µs, the database backends' CPU µs and the other processes' CPU µs.
 */
const measure = async (op, seconds) => {
  let stop = false
  let ops = 0
  const lat = []
  const loop = async () => {
    while (!stop && !stopAll) {
      const t0 = process.hrtime.bigint()
      await op()
      lat.push(Number(process.hrtime.bigint() - t0))
      ops++
    }
  }
  const timer = setTimeout(() => (stop = true), seconds * 1000)
  const machine0 = Proc.machineBusySeconds()
  const db0 = backendCpu()
  const cpu0 = process.cpuUsage()
  const start = process.hrtime.bigint()
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, loop))
  } finally {
    stop = true
    clearTimeout(timer)
  }
  const elapsed = Number(process.hrtime.bigint() - start)
  const cpu = process.cpuUsage(cpu0)
  const cpuUs = cpu.user + cpu.system
  const dbUs = backendCpuDelta(db0, backendCpu()) * 1e6
  const otherUs = (Proc.machineBusySeconds() - machine0) * 1e6 - cpuUs - (Number.isNaN(dbUs) ? 0 : dbUs)
  return { ops, elapsed, lat, cpuUs, dbUs, otherUs }
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

// --- database setup / reset / teardown ---------------------------------------------------------------------
let admin // connected to `postgres`: CREATE / DROP DATABASE
let local // connected to the bench database: schema, seed, reset
let created = false
const open = []

const seed = () =>
  local.query(
    `INSERT INTO pets (name, category_id, status)
     SELECT 'pet-' || g, 1 + g % 50, (ARRAY['available','pending','sold'])[1 + g % 3] FROM generate_series(1, ${SEED}) g`
  )
const reset = async () => {
  await local.query("TRUNCATE pets RESTART IDENTITY")
  await seed()
  await local.query("ANALYZE pets")
}

const setup = async () => {
  admin = new pg.Client({ connectionString: urlFor("postgres") })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${DB}`)
  created = true
  local = new pg.Client({ connectionString: DB_URL })
  local.on("error", () => {})
  await local.connect()
  await local.query(
    "CREATE TABLE pets (id bigserial PRIMARY KEY, name text NOT NULL, category_id bigint NOT NULL, status text NOT NULL)"
  )
  await local.query("CREATE INDEX pets_status_id ON pets (status, id)")
  await seed()
  await local.query("ANALYZE pets")
}

const withTimeout = (p, ms) => Promise.race([Promise.resolve(p).catch(() => {}), new Promise((r) => setTimeout(r, ms).unref())])

let cleaning
const cleanup = () =>
  (cleaning ??= (async () => {
    stopAll = true
    for (const d of open) await withTimeout(d.close(), 3000)
    await withTimeout(local?.end(), 2000)
    if (created) {
      // WITH (FORCE) (PostgreSQL 13+) ends any connection a driver failed to close.
      await withTimeout(admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`), 10_000)
      log(`dropped database ${DB}`)
    }
    await withTimeout(admin?.end(), 2000)
  })())

let aborting = false
const abort = (code, why) => {
  if (aborting) return
  aborting = true
  log(why)
  cleanup().finally(() => process.exit(code))
}
process.once("SIGINT", () => abort(130, "interrupted: cleaning up"))
process.once("SIGTERM", () => abort(143, "terminated: cleaning up"))

// --- main ---------------------------------------------------------------------------------------------------
const main = async () => {
  const names = opts.drivers.split(",").map((s) => s.trim()).filter(Boolean)
  for (const n of names) if (!(n in DRIVERS)) throw new Error(`unknown driver ${n} (known: ${Object.keys(DRIVERS).join(", ")})`)

  // The run must end by itself: expected duration × 1.5 + 60 s, then clean up and fail.
  const expected = (ROUNDS * (SECONDS + WARMUP + 0.2) + 1.2) * WORKLOADS.length * names.length + 10
  log(`expected duration ~${Math.round(expected)} s`)
  setTimeout(() => abort(2, "watchdog: run took too long"), (expected * 1.5 + 60) * 1000).unref()

  await setup()
  const { rows: [info] } = await local.query(
    "SELECT current_setting('server_version') AS v, current_setting('synchronous_commit') AS sc, current_setting('fsync') AS fs"
  )
  log(`database ${DB} (PostgreSQL ${info.v}, synchronous_commit=${info.sc}, fsync=${info.fs}), ${SEED} rows seeded`)

  const drivers = {}
  for (const n of names) {
    drivers[n] = await DRIVERS[n].make(`pg-drivers-bench:${n}`)
    open.push(drivers[n])
  }

  // Warm every code path up once (JIT, connections, prepared statements) before measuring anything.
  for (const workload of WORKLOADS) for (const name of names) await measure(drivers[name].ops[workload], 1)
  await reset()

  const results = {} // `${workload}/${driver}` → one entry per round
  let dirty = false
  for (let round = 0; round < ROUNDS && !stopAll; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length])
    for (const workload of WORKLOADS) {
      for (const name of order) {
        if (stopAll) break
        if (dirty) await reset()
        const op = drivers[name].ops[workload]
        await measure(op, WARMUP) // also (re)opens the pool's connections
        const backends = await local.query("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [`pg-drivers-bench:${name}`])
        backendPids = backends.rows.map((r) => r.pid)
        const m = await measure(op, SECONDS)
        if (WRITES.has(workload)) dirty = true
        const perOp = workload === "batch64" ? BATCH : 1 // batch64: throughput and CPU per row
        const lat = Float64Array.from(m.lat).sort()
        const r = {
          opsPerSec: (m.ops * perOp) / (m.elapsed / 1e9),
          p50: percentile(lat, 0.5) / 1e6,
          p99: percentile(lat, 0.99) / 1e6,
          cpuPerOp: m.cpuUs / (m.ops * perOp),
          dbPerOp: m.dbUs / (m.ops * perOp),
          otherCores: Math.max(0, m.otherUs) / (m.elapsed / 1e3)
        }
        ;(results[`${workload}/${name}`] ??= []).push(r)
        log(
          `round ${round + 1}/${ROUNDS} ${workload.padEnd(7)} ${name.padEnd(15)} ${r.opsPerSec.toFixed(0).padStart(8)}/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  cpu ${r.cpuPerOp.toFixed(1)} µs  db ${r.dbPerOp.toFixed(1)} µs  other ${r.otherCores.toFixed(2)} cores`
        )
      }
    }
  }
  if (stopAll) return

  // --- report: medians over rounds, ratios to the best driver of each workload ---
  const all = Object.values(results).flat()
  const lines = [
    `PostgreSQL drivers: ${ROUNDS} rounds × ${SECONDS} s per workload and driver, concurrency ${CONCURRENCY}, pool ${POOL}; ` +
    `Node ${process.version}, PostgreSQL ${info.v} (synchronous_commit=${info.sc}), ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}); ` +
    `other processes kept ${median(all.map((r) => r.otherCores)).toFixed(2)} cores busy (median of blocks).`,
    "",
    "Medians over rounds. batch64: throughput and CPU per row (64 rows per statement), latency per statement. " +
    "Node CPU = this process's user+system time per op; PG CPU = the database backends' time per op. " +
    "x best = ratio to the best driver (throughput: higher is better; CPU: lower is better). " +
    "drift = Node CPU/op of the last round / the first (above 1: the driver gets slower as it runs).",
    "",
    "| workload | driver | throughput /s | x best | p50 ms | p99 ms | Node CPU µs/op | x best | PG CPU µs/op | drift |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"
  ]
  for (const workload of WORKLOADS) {
    const rows = names.map((n) => {
      const rs = results[`${workload}/${n}`]
      const of = (k) => median(rs.map((r) => r[k]))
      return { n, ops: of("opsPerSec"), p50: of("p50"), p99: of("p99"), cpu: of("cpuPerOp"), db: of("dbPerOp"), drift: rs.at(-1).cpuPerOp / rs[0].cpuPerOp }
    })
    const bestOps = Math.max(...rows.map((r) => r.ops))
    const bestCpu = Math.min(...rows.map((r) => r.cpu))
    for (const r of rows) {
      const cells = [workload, DRIVERS[r.n].label, r.ops.toFixed(0), (r.ops / bestOps).toFixed(2), r.p50.toFixed(2), r.p99.toFixed(2),
        r.cpu.toFixed(1), (r.cpu / bestCpu).toFixed(2), Number.isNaN(r.db) ? "n/a" : r.db.toFixed(1), r.drift.toFixed(2)]
      lines.push(`| ${cells.join(" | ")} |`)
    }
  }
  console.log(lines.join("\n"))
}

main()
  .then(() => cleanup())
  .then(() => process.exit(0))
  .catch((e) => abort(1, e?.stack ?? String(e)))
