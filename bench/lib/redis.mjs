// The bench's Redis: the shared targets keep their rate limits there, each under a key prefix of its
// own that is unique to the run (`petstore_bench:<run>:<target>:`), on the server named by
// BENCH_REDIS_URL (default redis://127.0.0.1:6379). The runner reads Redis's command counts and CPU
// time around every measured load run (how many round trips a request costs, measured), and deletes
// the run's keys at the end, also when the run fails or is interrupted (`cleanSync`, from the
// runner's exit handler, through a child process).
//
//   node bench/lib/redis.mjs clean PREFIX...   deletes every key under the prefixes (what `cleanSync` runs)
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import Redis from "ioredis"
import { RUN_TOKEN } from "./pg.mjs"

export const url = () => process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379"

/** The run's prefix for a target: only lower-case letters, digits, `_` and `:` (nothing glob-special, no braces). */
export const prefixFor = (target) => `petstore_bench:${RUN_TOKEN}:${target.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}:`

const PREFIX = /^petstore_bench:[0-9a-f]+:[a-z0-9_]+:$/ // only ever delete keys under a prefix the bench named

const withClient = async (f, { timeoutMs = 2_000 } = {}) => {
  const client = new Redis(url(), {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: 10_000,
    maxRetriesPerRequest: 0,
    enableReadyCheck: false,
    enableOfflineQueue: false,
    retryStrategy: () => null
  })
  let cause // ioredis rejects with "Connection is closed."; the error event says why
  client.on("error", (e) => (cause ??= e))
  try {
    await client.connect()
  } catch (e) {
    client.disconnect()
    throw cause ?? e
  }
  try {
    return await f(client)
  } finally {
    client.disconnect()
  }
}

/** `INFO` text → { field: value } (lines `name:value`). */
const fields = (text) =>
  Object.fromEntries(text.split("\r\n").filter((l) => l.includes(":") && !l.startsWith("#")).map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1)]))

/**
 * Whether Redis answers, and its version (shown in the report). Never throws: `{ available: false,
 * reason }` when it cannot be reached.
 */
export const probe = async () => {
  try {
    return await withClient(async (c) => {
      if ((await c.ping()) !== "PONG") throw new Error("PING did not answer PONG")
      const server = fields(await c.info("server"))
      const persistence = fields(await c.info("persistence"))
      return { available: true, version: server.redis_version, url: redact(url()), appendonly: persistence.aof_enabled === "1" ? "yes" : "no" }
    })
  } catch (e) {
    return { available: false, reason: `Redis cannot be reached at ${redact(url())}: ${String(e.message ?? e).split("\n")[0]}` }
  }
}

// The commands a client sends to run a script: one round trip each. (The commands a script runs
// inside Redis are counted in `commandstats` too, under their own names, and are not round trips.)
const SCRIPT_CALLS = ["evalsha", "eval", "evalsha_ro", "eval_ro", "fcall", "fcall_ro"]

/**
 * Redis's counters now: script calls (EVALSHA, EVAL, …: round trips that run a script) by command,
 * Redis's own CPU seconds (`INFO cpu`) and the connections it has accepted since it started (`INFO
 * stats`; this reading's own included). `undefined` when Redis cannot be read.
 */
export const stats = async () => {
  try {
    return await withClient(async (c) => {
      const commands = fields(await c.info("commandstats"))
      const cpu = fields(await c.info("cpu"))
      const counters = fields(await c.info("stats"))
      const calls = {}
      for (const name of SCRIPT_CALLS) {
        const m = /(?:^|,)calls=(\d+)/.exec(commands[`cmdstat_${name}`] ?? "")
        calls[name] = m === null ? 0 : Number(m[1])
      }
      return { calls, cpuSeconds: Number(cpu.used_cpu_user) + Number(cpu.used_cpu_sys), connections: Number(counters.total_connections_received) }
    })
  } catch {
    return undefined
  }
}

/**
 * Script calls, Redis CPU seconds, and connections other clients opened, between two `stats`
 * readings (NaN when one is missing). `otherConnections` leaves out the second reading's own: a
 * target's instances keep their connections open, so any other is a client outside the target
 * (whose script calls, if any, are in `scriptCalls` too).
 */
export const statsDelta = (before, after) => {
  if (before === undefined || after === undefined) {
    return { scriptCalls: Number.NaN, byCommand: {}, cpuSeconds: Number.NaN, otherConnections: Number.NaN }
  }
  const byCommand = {}
  let scriptCalls = 0
  for (const name of SCRIPT_CALLS) {
    const d = after.calls[name] - before.calls[name]
    if (d !== 0) byCommand[name] = d
    scriptCalls += d
  }
  return { scriptCalls, byCommand, cpuSeconds: after.cpuSeconds - before.cpuSeconds, otherConnections: after.connections - before.connections - 1 }
}

/**
 * Whether Redis runs on this machine (its `process_id` is a redis process in /proc): then its CPU is
 * counted as the targets' database work, not as other processes' load.
 */
export const isLocal = async () => {
  try {
    const pid = await withClient(async (c) => fields(await c.info("server")).process_id)
    return existsSync(`/proc/${pid}/comm`) && readFileSync(`/proc/${pid}/comm`, "utf8").includes("redis")
  } catch {
    return false
  }
}

/** Deletes every key under `prefix` (SCAN … MATCH prefix*, UNLINK); returns how many. */
export const clean = async (prefix) => {
  if (!PREFIX.test(prefix)) throw new Error(`refusing to delete keys under ${JSON.stringify(prefix)}`)
  return withClient(async (c) => {
    let cursor = "0"
    let deleted = 0
    do {
      const [next, keys] = await c.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
      cursor = next
      if (keys.length > 0) deleted += await c.unlink(...keys)
    } while (cursor !== "0")
    return deleted
  }, { timeoutMs: 5_000 })
}

/** Keys under `prefix` now (SCAN; for the report's evidence that the state is in Redis). */
export const count = async (prefix) => {
  try {
    return await withClient(async (c) => {
      let cursor = "0"
      let n = 0
      do {
        const [next, keys] = await c.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
        cursor = next
        n += keys.length
      } while (cursor !== "0")
      return n
    })
  } catch {
    return Number.NaN
  }
}

/** `clean` for an exiting process (no event loop left): runs this file as a child and waits for it. */
export const cleanSync = (prefixes) => {
  if (prefixes.length === 0) return
  try {
    execFileSync(process.execPath, [fileURLToPath(import.meta.url), "clean", ...prefixes], { stdio: ["ignore", "inherit", "inherit"], timeout: 30_000 })
  } catch (e) {
    console.error(`[bench] could not delete the Redis keys under ${prefixes.join(", ")}: ${String(e.message ?? e).split("\n")[0]}`)
  }
}

/** The URL without its password. */
export const redact = (s) => {
  try {
    const u = new URL(s)
    if (u.password !== "") u.password = "***"
    return u.toString()
  } catch {
    return "(invalid URL)"
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "clean") {
  let failed = false
  for (const prefix of process.argv.slice(3)) {
    try {
      const n = await clean(prefix)
      console.error(`[bench] deleted ${n} Redis keys under ${prefix}`)
    } catch (e) {
      failed = true
      console.error(`[bench] could not delete the Redis keys under ${prefix}: ${e.message}`)
    }
  }
  process.exit(failed ? 1 : 0)
}
