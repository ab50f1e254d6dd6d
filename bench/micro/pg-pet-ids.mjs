// What the pet id rule of packages/postgres costs insert throughput: ids taken from the one-row
// counter `pet_ids` inside the insert statement (PetRepositoryPg's INSERT_BATCH; the row stays locked
// until commit, so inserts commit one after another, in id order) against a plain bigserial id (a
// sequence: inserts run side by side, ids can become visible out of order).
//
//   node bench/micro/pg-pet-ids.mjs [--seconds 4] [--rounds 3] [--warmup 0.5] [--writers 1,8,32]
//                                   [--batches 1,32] [--url postgres://…]
//
// It creates its own database (petstore_petids_<random>) through the `postgres` database and drops it
// at the end, also on error, SIGINT/SIGTERM or when the watchdog fires. Tables, as in Migrations.ts:
//   pets_counter  (id bigint PRIMARY KEY, …) + pet_ids (the counter row)
//   pets_sequence (id bigserial PRIMARY KEY, …)
// both with the (status, id) index. For every writers × batch cell and round (variant order
// alternating per round), both tables are emptied, then `writers` loops, each on its own connection
// of a pg.Pool (max = writers, named prepared statements), send autocommit insert statements of
// `batch` rows for `--seconds` after `--warmup` seconds. Reported: medians over rounds of rows/s,
// statements/s and p50 statement latency, and the counter/sequence ratio.
//
// Then the anomaly the rule prevents, once per variant (8 writers, batch 1, `--seconds`): a reader on
// its own connection pages with `WHERE id > $cursor ORDER BY id LIMIT 50`, advancing the cursor to the
// last id it got. Afterwards, every id at or below its final cursor that it never saw is a pet it
// skipped: the id became visible only after the reader had paged past it.
import os from "node:os"
import { parseArgs } from "node:util"
import pg from "pg"
import * as Proc from "../lib/proc.mjs"

const { values: opts } = parseArgs({
  options: {
    seconds: { type: "string", default: "4" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "0.5" },
    writers: { type: "string", default: "1,8,32" },
    batches: { type: "string", default: "1,32" },
    url: { type: "string", default: process.env.PGBENCH_URL ?? "postgres://postgres@127.0.0.1:5432" }
  }
})
const SECONDS = Number(opts.seconds)
const ROUNDS = Number(opts.rounds)
const WARMUP = Number(opts.warmup)
const WRITERS = opts.writers.split(",").map(Number)
const BATCHES = opts.batches.split(",").map(Number)
const SKIP_WRITERS = 8
const PAGE = 50
const STATUSES = ["available", "pending", "sold"]

const log = (...xs) => console.error(...xs)
const urlFor = (database) => {
  const u = new URL(opts.url)
  u.pathname = `/${database}`
  return u.toString()
}
const DB = `petstore_petids_${Math.random().toString(36).slice(2, 10)}`
const DB_URL = urlFor(DB)

// int8 comes back as a string by default; ids stay far below 2^53 here.
const pgTypes = {
  getTypeParser: (oid, format) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format))
}

// --- statements: $1 names, $2 category ids, $3 statuses (one row per array element) ----------------------
const VARIANTS = {
  counter: {
    table: "pets_counter",
    // PetRepositoryPg's INSERT_BATCH, on this bench's table names.
    text: `
      WITH taken AS (UPDATE pet_ids SET last = last + cardinality($1::text[]) RETURNING last - cardinality($1::text[]) AS before),
      inserted AS (
        INSERT INTO pets_counter (id, name, category_id, status)
        SELECT taken.before + d.n, d.name, d.category_id, d.status
        FROM taken, unnest($1::text[], $2::int8[], $3::text[]) WITH ORDINALITY AS d(name, category_id, status, n)
      )
      SELECT before + 1 AS first FROM taken`
  },
  sequence: {
    table: "pets_sequence",
    // Sequence ids need not be contiguous, so the caller needs every one of them back.
    text: `
      INSERT INTO pets_sequence (name, category_id, status)
      SELECT d.name, d.category_id, d.status FROM unnest($1::text[], $2::int8[], $3::text[]) AS d(name, category_id, status)
      RETURNING id`
  }
}
const VARIANT_NAMES = Object.keys(VARIANTS)

// Inputs built up front, the same for both variants (batch 1 always: the skip check uses it).
const inputs = new Map(
  [...new Set([...BATCHES, 1])].map((n) => [
    n,
    Array.from({ length: 16 }, (_, b) => [
      Array.from({ length: n }, (_, i) => `pet-${b}-${i}`),
      Array.from({ length: n }, (_, i) => 1 + ((b * 7 + i) % 50)),
      Array.from({ length: n }, (_, i) => STATUSES[(b + i) % 3])
    ])
  ])
)

// --- measurement -----------------------------------------------------------------------------------------
let stopAll = false
const pools = new Map() // writers → pg.Pool with max = writers

/**
 * `writers` loops, each on its own pooled connection, insert batches of `batch` rows into `variant`
 * for `seconds`; `during` (optional) runs alongside until they stop. Returns statements, elapsed ns
 * and per-statement latencies (ns).
 */
const measure = async (variant, writers, batch, seconds, during) => {
  const pool = pools.get(writers)
  const { text } = VARIANTS[variant]
  const name = `insert_${variant}` // prepared once per connection, then only Bind/Execute
  const data = inputs.get(batch)
  let stop = false
  let statements = 0
  const lat = []
  const writer = async (w) => {
    const client = await pool.connect()
    try {
      for (let i = w; !stop && !stopAll; i++) {
        const t0 = process.hrtime.bigint()
        await client.query({ name, text, values: data[i & 15] })
        lat.push(Number(process.hrtime.bigint() - t0))
        statements++
      }
    } finally {
      client.release()
    }
  }
  const timer = setTimeout(() => (stop = true), seconds * 1000)
  const start = process.hrtime.bigint()
  try {
    await Promise.all([...Array.from({ length: writers }, (_, w) => writer(w)), during?.(() => stop || stopAll)])
  } finally {
    stop = true
    clearTimeout(timer)
  }
  return { statements, elapsed: Number(process.hrtime.bigint() - start), lat }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

// --- database setup / reset / teardown -------------------------------------------------------------------
let admin // connected to `postgres`: CREATE / DROP DATABASE
let local // connected to the bench database: schema, reset, checks
let reader // the paging reader's own connection
let created = false

const setup = async () => {
  admin = new pg.Client({ connectionString: urlFor("postgres") })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${DB}`)
  created = true
  local = new pg.Client({ connectionString: DB_URL, types: pgTypes })
  local.on("error", () => {})
  await local.connect()
  const columns = "name text NOT NULL, category_id bigint NOT NULL, status text NOT NULL CHECK (status IN ('available', 'pending', 'sold'))"
  await local.query(`CREATE TABLE pets_counter (id bigint PRIMARY KEY, ${columns})`)
  await local.query("CREATE INDEX pets_counter_by_status ON pets_counter (status, id)")
  await local.query("CREATE TABLE pet_ids (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), last bigint NOT NULL)")
  await local.query("INSERT INTO pet_ids (only_row, last) VALUES (true, 0)")
  await local.query(`CREATE TABLE pets_sequence (id bigserial PRIMARY KEY, ${columns})`)
  await local.query("CREATE INDEX pets_sequence_by_status ON pets_sequence (status, id)")
  reader = new pg.Client({ connectionString: DB_URL, types: pgTypes })
  reader.on("error", () => {})
  await reader.connect()
  for (const w of new Set([...WRITERS, SKIP_WRITERS])) {
    const pool = new pg.Pool({ connectionString: DB_URL, max: w, types: pgTypes })
    pool.on("error", () => {}) // idle-client errors (e.g. the forced DROP DATABASE at the end)
    pools.set(w, pool)
  }
}

// Both tables empty and both id sources back at 1, so every block starts from the same state.
const reset = async () => {
  await local.query("TRUNCATE pets_counter, pets_sequence RESTART IDENTITY")
  await local.query("UPDATE pet_ids SET last = 0")
}

const withTimeout = (p, ms) => Promise.race([Promise.resolve(p).catch(() => {}), new Promise((r) => setTimeout(r, ms).unref())])

let cleaning
const cleanup = () =>
  (cleaning ??= (async () => {
    stopAll = true
    for (const pool of pools.values()) await withTimeout(pool.end(), 3000)
    await withTimeout(reader?.end(), 2000)
    await withTimeout(local?.end(), 2000)
    if (created) {
      // WITH (FORCE) (PostgreSQL 13+) ends any connection left open.
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

// --- the skip check ---------------------------------------------------------------------------------------
// Pages through `table` until `stopped()`, then counts the ids at or below its final cursor it never saw.
const skipCheck = async (variant) => {
  const { table } = VARIANTS[variant]
  const seen = new Set()
  let cursor = 0
  let queries = 0
  const page = { name: `page_${table}`, text: `SELECT id FROM ${table} WHERE id > $1 ORDER BY id LIMIT ${PAGE}` }
  const during = async (stopped) => {
    while (!stopped()) {
      const { rows } = await reader.query({ ...page, values: [cursor] })
      queries++
      for (const { id } of rows) seen.add(id)
      if (rows.length > 0) cursor = rows.at(-1).id
    }
  }
  await reset()
  const m = await measure(variant, SKIP_WRITERS, 1, SECONDS, during)
  const { rows: [r] } = await local.query(`SELECT count(*)::int AS passed, array_agg(id ORDER BY id) AS ids FROM ${table} WHERE id <= $1`, [cursor])
  const skipped = (r.ids ?? []).filter((id) => !seen.has(Number(id)))
  return { variant, rows: m.statements, queries, passed: r.passed, skipped: skipped.length, examples: skipped.slice(0, 5) }
}

// --- main ---------------------------------------------------------------------------------------------------
const main = async () => {
  const cells = WRITERS.flatMap((writers) => BATCHES.map((batch) => ({ writers, batch })))
  // The run must end by itself: expected duration × 1.5 + 60 s, then clean up and fail.
  const expected = (ROUNDS * cells.length * VARIANT_NAMES.length + VARIANT_NAMES.length) * (SECONDS + WARMUP + 0.2) + 5
  log(`expected duration ~${Math.round(expected)} s`)
  setTimeout(() => abort(2, "watchdog: run took too long"), (expected * 1.5 + 60) * 1000).unref()

  const loadBefore = Proc.loadAverage()[0]
  await setup()
  const { rows: [info] } = await local.query(
    "SELECT current_setting('server_version') AS v, current_setting('synchronous_commit') AS sc, current_setting('fsync') AS fs"
  )
  log(`database ${DB} (PostgreSQL ${info.v}, synchronous_commit=${info.sc}, fsync=${info.fs})`)

  const results = {} // `${variant}/${writers}/${batch}` → one entry per round
  for (let round = 0; round < ROUNDS && !stopAll; round++) {
    const order = round % 2 === 0 ? VARIANT_NAMES : [...VARIANT_NAMES].reverse()
    for (const { writers, batch } of cells) {
      for (const variant of order) {
        if (stopAll) break
        await reset()
        await measure(variant, writers, batch, WARMUP) // also opens the connections and prepares
        const m = await measure(variant, writers, batch, SECONDS)
        if (stopAll) break // cut short by a signal or the watchdog
        const secs = m.elapsed / 1e9
        const r = { stmts: m.statements / secs, rows: (m.statements * batch) / secs, p50: median(m.lat) / 1e6 }
        ;(results[`${variant}/${writers}/${batch}`] ??= []).push(r)
        log(
          `round ${round + 1}/${ROUNDS} ${variant.padEnd(8)} writers ${String(writers).padStart(2)} batch ${String(batch).padStart(2)}: ` +
          `${r.rows.toFixed(0).padStart(7)} rows/s ${r.stmts.toFixed(0).padStart(6)} stmts/s  p50 ${r.p50.toFixed(2)} ms`
        )
      }
    }
  }
  if (stopAll) return

  const skips = []
  for (const variant of ["sequence", "counter"]) {
    if (stopAll) return
    const s = await skipCheck(variant)
    skips.push(s)
    log(`skip check ${variant}: ${s.skipped} skipped of ${s.passed} ids paged past (${s.queries} reader queries)`)
  }

  // --- report: medians over rounds, counter/sequence ratios ---
  const of = (variant, writers, batch, k) => median(results[`${variant}/${writers}/${batch}`].map((r) => r[k]))
  const lines = [
    `Pet id rule: ${ROUNDS} rounds × ${SECONDS} s per cell and variant (variant order alternating), autocommit statements, ` +
    `pg 8 named prepared, one pooled connection per writer; Node ${process.version}, PostgreSQL ${info.v} ` +
    `(synchronous_commit=${info.sc}, fsync=${info.fs}), ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}); ` +
    `1-min load average ${loadBefore.toFixed(2)} before the run, ${Proc.loadAverage()[0].toFixed(2)} after (the run included).`,
    "",
    "Medians over rounds. counter = ids from the locked `pet_ids` row in the statement (our rule); sequence = bigserial. " +
    "p50 = statement latency. ratio = counter / sequence rows/s (statements/s has the same ratio): median of the " +
    "per-round ratios (the two variants of a round run back to back), and their range over rounds.",
    "",
    "| writers | batch | counter rows/s | counter stmts/s | counter p50 ms | sequence rows/s | sequence stmts/s | sequence p50 ms | ratio | ratio range |",
    "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  ]
  for (const { writers, batch } of cells) {
    const c = (k) => of("counter", writers, batch, k)
    const s = (k) => of("sequence", writers, batch, k)
    const seq = results[`sequence/${writers}/${batch}`]
    const ratios = results[`counter/${writers}/${batch}`].map((r, i) => r.rows / seq[i].rows)
    const cellsOut = [writers, batch, c("rows").toFixed(0), c("stmts").toFixed(0), c("p50").toFixed(2),
      s("rows").toFixed(0), s("stmts").toFixed(0), s("p50").toFixed(2), median(ratios).toFixed(2),
      `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`]
    lines.push(`| ${cellsOut.join(" | ")} |`)
  }
  lines.push(
    "",
    `Skip check: ${SKIP_WRITERS} writers, batch 1, ${SECONDS} s; a reader pages \`WHERE id > $cursor ORDER BY id LIMIT ${PAGE}\`. ` +
    "skipped = ids at or below its final cursor it never saw (visible only after it had paged past them).",
    "",
    "| variant | rows inserted | reader queries | ids paged past | skipped | first skipped ids |",
    "|---|--:|--:|--:|--:|---|"
  )
  for (const s of skips) lines.push(`| ${s.variant} | ${s.rows} | ${s.queries} | ${s.passed} | ${s.skipped} | ${s.examples.join(", ") || "-"} |`)
  console.log(lines.join("\n"))
}

main()
  .then(() => cleanup())
  .then(() => process.exit(0))
  .catch((e) => abort(1, e?.stack ?? String(e)))
