// The bench's PostgreSQL databases: each run creates fresh ones (one per PostgreSQL target) on the
// server named by BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres, the
// maintenance database) and drops them at the end of the run, also when the run fails or is
// interrupted (`dropSync`, from the runner's exit handler, through a child process).
//
//   node bench/lib/pg.mjs drop NAME...   drops the named databases (what `dropSync` runs)
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import pg from "pg"
import * as Proc from "./proc.mjs"

/** The maintenance database: where databases are created and dropped from. */
export const adminUrl = () => process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** The URL of database `name` on the same server as `adminUrl()`. */
export const databaseUrl = (name) => {
  const url = new URL(adminUrl())
  url.pathname = `/${name}`
  return url.toString()
}

/** A fresh database name for this run: petstore_bench_<random>_<suffix>. */
export const RUN_TOKEN = randomBytes(4).toString("hex")
export const databaseName = (suffix) => `petstore_bench_${RUN_TOKEN}_${suffix.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}`

const NAME = /^petstore_bench_[a-z0-9_]+$/ // only ever create or drop databases the bench named

const withAdmin = async (f, { timeoutMs = 3_000 } = {}) => {
  const client = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: timeoutMs })
  client.on("error", () => {}) // a server going away while idle must not crash the runner
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * Whether PostgreSQL answers, and its version and durability settings (shown in the report). Never
 * throws: `{ available: false, reason }` when it cannot be reached.
 */
export const probe = async () => {
  try {
    return await withAdmin(async (c) => {
      const { rows: [r] } = await c.query(
        "SELECT current_setting('server_version') AS version, current_setting('fsync') AS fsync, " +
          "current_setting('synchronous_commit') AS synchronous_commit, current_setting('max_connections') AS max_connections"
      )
      return { available: true, ...r, url: redact(adminUrl()) }
    })
  } catch (e) {
    return { available: false, reason: `PostgreSQL cannot be reached at ${redact(adminUrl())}: ${String(e.message ?? e).split("\n")[0]}` }
  }
}

export const create = async (name) => {
  if (!NAME.test(name)) throw new Error(`refusing to create database ${JSON.stringify(name)}`)
  await withAdmin((c) => c.query(`CREATE DATABASE "${name}"`))
}

/**
 * Waits until database `name` holds no message still to process (none `queued` or `processing`), so
 * that a measured window includes the work its messages cause after their 202 (claims, outcomes, the
 * workers' idle looks) and leaves none to the next window. Polls every 50 ms (an `EXISTS`, one
 * transaction each); throws after `timeoutMs`. Resolves with the transactions its polls made, which a
 * window takes off the database's count.
 */
export const drained = async (name, { timeoutMs = 120_000 } = {}) => {
  const client = new pg.Client({ connectionString: databaseUrl(name), connectionTimeoutMillis: 3_000 })
  client.on("error", () => {})
  await client.connect()
  try {
    const deadline = Date.now() + timeoutMs
    for (let polls = 1; ; polls++) {
      const { rows: [r] } = await client.query("SELECT EXISTS (SELECT 1 FROM messages WHERE status IN ('queued', 'processing')) AS pending")
      if (!r.pending) return { transactions: polls }
      if (Date.now() > deadline) throw new Error(`messages still pending after ${timeoutMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  } finally {
    await client.end().catch(() => {})
  }
}

/** Drops the database, ending any session still connected to it (PostgreSQL ≥ 13). */
export const drop = async (name) => {
  if (!NAME.test(name)) throw new Error(`refusing to drop database ${JSON.stringify(name)}`)
  await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`), { timeoutMs: 10_000 })
}

/**
 * CPU seconds used so far by each PostgreSQL backend connected to database `name` (pid → seconds),
 * read from /proc: the database work a target's requests cost, which runs outside its own process.
 * Only when the server runs on this machine; `undefined` when it cannot be read.
 */
export const backendCpu = async (name) => {
  try {
    const pids = await withAdmin(async (c) => (await c.query("SELECT pid FROM pg_stat_activity WHERE datname = $1", [name])).rows.map((r) => r.pid))
    const cpu = new Map()
    for (const pid of pids) {
      try {
        cpu.set(pid, Proc.cpuSeconds(pid))
      } catch {
        // not on this machine, or gone meanwhile
      }
    }
    return pids.length > 0 && cpu.size === 0 ? undefined : cpu
  } catch {
    return undefined
  }
}

/** CPU seconds the backends used between two `backendCpu` readings (a new backend counts whole). */
export const backendCpuDelta = (before, after) => {
  if (before === undefined || after === undefined) return Number.NaN
  let sum = 0
  for (const [pid, s] of after) sum += s - (before.get(pid) ?? 0)
  return sum
}

/** `drop` for an exiting process (no event loop left): runs this file as a child and waits for it. */
export const dropSync = (names) => {
  if (names.length === 0) return
  try {
    execFileSync(process.execPath, [fileURLToPath(import.meta.url), "drop", ...names], { stdio: ["ignore", "inherit", "inherit"], timeout: 30_000 })
  } catch (e) {
    console.error(`[bench] could not drop ${names.join(", ")}: ${String(e.message ?? e).split("\n")[0]}`)
  }
}

/** The URL without its password. */
export const redact = (s) => {
  try {
    const url = new URL(s)
    if (url.password !== "") url.password = "***"
    return url.toString()
  } catch {
    return "(invalid URL)"
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "drop") {
  let failed = false
  for (const name of process.argv.slice(3)) {
    try {
      await drop(name)
      console.error(`[bench] dropped database ${name}`)
    } catch (e) {
      failed = true
      console.error(`[bench] could not drop database ${name}: ${e.message}`)
    }
  }
  process.exit(failed ? 1 : 0)
}
