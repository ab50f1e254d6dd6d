// The servers the bench measures, how to start them, and how to get each ready (accounts, seed pets).
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs"
import * as Http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BENCH_LIMITS, draft, firstPage, PAGE_LIMIT, SEED_PETS } from "../fixture.mjs"
import * as Pg from "./pg.mjs"
import * as Proc from "./proc.mjs"
import * as Redis from "./redis.mjs"

export const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef"
const RAW_KEY = `psk_live_${"0".repeat(32)}` // raw ignores the header; sent so the request bytes match

/**
 * Our server as shipped: the `petstore` command (`bin/petstore.cjs`: the bundle `pnpm run build`
 * writes, compiled from its code cache; `dist/bin.js` if there is no bundle).
 */
export const shipped = (root) => join(root, "packages/server/bin/petstore.cjs")

/** Whether our server can run on the durable store yet (packages/sqlite built and selectable). */
export const durableSupport = (root) => {
  if (!existsSync(join(root, "packages/sqlite/package.json"))) return { available: false, reason: "packages/sqlite does not exist yet" }
  if (!existsSync(join(root, "packages/sqlite/dist/index.js"))) return { available: false, reason: "packages/sqlite is not built (no dist/index.js)" }
  const dist = join(root, "packages/server/dist")
  const reads = existsSync(dist) && readdirSync(dist).some((f) => f.endsWith(".js") && readFileSync(join(dist, f), "utf8").includes("PETSTORE_DATABASE"))
  if (!reads) return { available: false, reason: "the server does not read PETSTORE_DATABASE yet (Main.services)" }
  return { available: true }
}

/** Whether the one-commit-per-request baseline can run (better-sqlite3 resolvable and built). */
export const commitPerRequestSupport = async (root) => {
  try {
    const { resolveBetterSqlite3 } = await import("../peers/sqlite-commit-per-request.mjs")
    const { createRequire } = await import("node:module")
    const Database = createRequire(import.meta.url)(resolveBetterSqlite3())
    new Database(":memory:").close()
    return { available: true }
  } catch (e) {
    return { available: false, reason: `better-sqlite3 is not usable from packages/sqlite: ${String(e.message ?? e).split("\n")[0]}` }
  }
}

/**
 * Whether the PostgreSQL targets can run: `server` for ours (packages/postgres built and the server
 * taking a postgres:// PETSTORE_DATABASE), `available` for any (PostgreSQL answers at
 * BENCH_POSTGRES_URL). Never throws; the reasons go into the report.
 */
export const postgresSupport = async (root) => {
  const db = await Pg.probe()
  if (!db.available) return { available: false, server: false, reason: db.reason }
  const settings = `PostgreSQL ${db.version} at ${db.url}, fsync=${db.fsync}, synchronous_commit=${db.synchronous_commit}`
  if (!existsSync(join(root, "packages/postgres/dist/index.js"))) {
    return { available: true, server: false, reason: "packages/postgres is not built (no dist/index.js)", settings }
  }
  const dist = join(root, "packages/server/dist")
  const reads = existsSync(dist) && readdirSync(dist).some((f) => f.endsWith(".js") && readFileSync(join(dist, f), "utf8").includes("PETSTORE_DATABASE_POOL_SIZE"))
  if (!reads) return { available: true, server: false, reason: "the server does not take a postgres:// PETSTORE_DATABASE yet", settings }
  return { available: true, server: true, settings }
}

/**
 * Whether the shared targets (two instances on one PostgreSQL database and Redis) can run: `server`
 * for ours (packages/redis built and the server taking PETSTORE_REDIS_URL), `available` for any
 * (Redis answers at BENCH_REDIS_URL; PostgreSQL is asked by `postgresSupport`). Never throws.
 */
export const redisSupport = async (root) => {
  const redis = await Redis.probe()
  if (!redis.available) return { available: false, server: false, reason: redis.reason }
  const settings = `Redis ${redis.version} at ${redis.url} (appendonly ${redis.appendonly})`
  if (!existsSync(join(root, "packages/redis/dist/index.js"))) {
    return { available: true, server: false, reason: "packages/redis is not built (no dist/index.js)", settings }
  }
  const dist = join(root, "packages/server/dist")
  const reads = existsSync(dist) && readdirSync(dist).some((f) => f.endsWith(".js") && readFileSync(join(dist, f), "utf8").includes("PETSTORE_REDIS_URL"))
  if (!reads) return { available: true, server: false, reason: "the server does not take PETSTORE_REDIS_URL yet", settings }
  return { available: true, server: true, settings }
}

/** How many instances the shared targets run (on one database and one Redis). */
export const SHARED_INSTANCES = 2

/**
 * The targets. `kind`: "app" targets authenticate and rate-limit (accounts come from their admin
 * API); "raw" ones answer without either. `scenarios`: where a target takes part.
 */
export const targets = ({ durable, commitPerRequest, postgres = { available: false, server: false }, redis = { available: false, server: false }, root }) => {
  // Our server on the in-memory store with one setting changed: a comparison row for `memory`.
  const memoryVariant = (id, what, env, scenarios, bin = shipped(root)) => ({
    id,
    label: `ours, in-memory store, ${what}`,
    role: "comparison",
    argv: [bin, "serve"],
    env: { PETSTORE_STORE: "memory", ...env },
    cwd: mkdtempSync(join(tmpdir(), `petstore-bench-${id}-`)),
    kind: "app",
    scenarios
  })
  const list = [
    {
      id: "raw",
      label: "raw node:http, constant body",
      role: "BASELINE (ceiling)",
      argv: ["bench/peers/raw.mjs"],
      kind: "raw",
      scenarios: ["get", "post"]
    },
    {
      id: "fastify",
      label: "Fastify 5 + @fastify/rate-limit",
      role: "BASELINE (peer)",
      argv: ["bench/peers/fastify.mjs"],
      kind: "app",
      scenarios: ["get", "post"]
    },
    {
      id: "fastify-pino",
      label: "Fastify 5 + @fastify/rate-limit, pino logging each request",
      role: "BASELINE (peer with a request log)",
      argv: ["bench/peers/fastify.mjs"],
      env: { BENCH_FASTIFY_LOGGER: "pino" },
      kind: "app",
      scenarios: ["get", "post"]
    },
    {
      id: "memory",
      label: "ours, in-memory store",
      role: "ours",
      argv: [shipped(root), "serve"],
      env: { PETSTORE_STORE: "memory" },
      cwd: mkdtempSync(join(tmpdir(), "petstore-bench-memory-")),
      kind: "app",
      scenarios: ["get", "post"]
    },
    // The same server from its compiled modules (`node packages/server/dist/bin.js serve`), not the
    // bundle `petstore` runs: what the bundle and its code cache save at start-up and in memory.
    memoryVariant("unbundled", "unbundled (dist/bin.js)", {}, ["get", "post"], join(root, "packages/server/dist/bin.js")),
    memoryVariant("nometrics", "metrics off (PETSTORE_METRICS=false)", { PETSTORE_METRICS: "false" }, ["get", "post"]),
    memoryVariant("nousage", "usage counting off (PETSTORE_USAGE=off)", { PETSTORE_USAGE: "off" }, ["get", "post"]),
    // Only its GET is compared (with raw node:http's: what the server costs without its access line).
    memoryVariant("nolog", "access log off (PETSTORE_ACCESS_LOG=false)", { PETSTORE_ACCESS_LOG: "false" }, ["get"])
  ]
  if (durable.available) {
    const dir = mkdtempSync(join(tmpdir(), "petstore-bench-"))
    list.push({
      id: "durable",
      label: "ours, durable SQLite store",
      role: "ours",
      argv: [shipped(root), "serve"],
      env: { PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: join(dir, "petstore.db") },
      cwd: dir,
      dataDir: dir,
      kind: "app",
      scenarios: ["get", "post", "post-keyed"]
    })
  }
  if (durable.available) {
    const dir = mkdtempSync(join(tmpdir(), "petstore-bench-commit1-"))
    list.push({
      id: "commit1",
      label: "ours, durable store, group commit off (one commit per request)",
      role: "comparison",
      argv: ["bench/servers/petstore-commit-per-request.mjs"],
      env: { PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: join(dir, "petstore.db") },
      cwd: dir,
      dataDir: dir,
      kind: "app",
      scenarios: ["post"]
    })
  }
  if (durable.available && commitPerRequest.available) {
    const dir = mkdtempSync(join(tmpdir(), "petstore-bench-sqlite1-"))
    list.push({
      id: "sqlite1",
      label: "node:http + better-sqlite3, one commit per request",
      role: "BASELINE (durable POST)",
      argv: ["bench/peers/sqlite-commit-per-request.mjs"],
      env: { BENCH_SQLITE_FILE: join(dir, "pets.db") },
      dataDir: dir,
      kind: "raw",
      scenarios: ["post"]
    })
  }
  // PostgreSQL: each target gets a database of its own, created by the runner just before the
  // target starts (`database`) and dropped at the end of the run.
  if (postgres.available && postgres.server) {
    const database = Pg.databaseName("postgres")
    list.push({
      id: "postgres",
      label: "ours, PostgreSQL store",
      role: "ours",
      argv: [shipped(root), "serve"],
      // PETSTORE_STORE=sqlite means "the durable store PETSTORE_DATABASE names": a postgres:// URL here.
      env: { PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: Pg.databaseUrl(database), PETSTORE_DATABASE_POOL_SIZE: "10" },
      cwd: mkdtempSync(join(tmpdir(), "petstore-bench-postgres-")),
      database,
      kind: "app",
      scenarios: ["get", "post", "post-keyed"]
    })
  }
  if (postgres.available) {
    const database = Pg.databaseName("fastify_pg")
    list.push({
      id: "fastify-pg",
      label: "Fastify 5 + @fastify/rate-limit + pg, one autocommit INSERT per POST",
      role: "BASELINE (PostgreSQL peer)",
      argv: ["bench/peers/fastify-pg.mjs"],
      env: { BENCH_PG_URL: Pg.databaseUrl(database) },
      database,
      kind: "app",
      scenarios: ["get", "post"]
    })
  }
  // Scale-out: SHARED_INSTANCES processes of one target on one fresh database and one Redis, each
  // target under a key prefix of its own, unique to the run (`redisPrefix`, deleted at the end).
  // The load is spread over the instances (one load generator per instance, see bench/run.mjs).
  // The same two on one instance each (`postgres-redis`, `fastify-shared1`): the Redis limiter's cost
  // on one process (against `postgres`, the same server with the in-memory limiter) and the
  // one-instance GET and durable POST against the one-instance peer that also keeps its limit in Redis.
  const oursOnPostgresAndRedis = ({ id, instances, label, scenarios }) => {
    const database = Pg.databaseName(id.replaceAll("-", "_"))
    const redisPrefix = Redis.prefixFor(id.replaceAll("-", "_"))
    return {
      id,
      label,
      role: "ours",
      argv: [shipped(root), "serve"],
      env: {
        PETSTORE_STORE: "sqlite",
        PETSTORE_DATABASE: Pg.databaseUrl(database),
        PETSTORE_DATABASE_POOL_SIZE: "10",
        PETSTORE_REDIS_URL: Redis.url(),
        PETSTORE_REDIS_PREFIX: redisPrefix
      },
      cwd: mkdtempSync(join(tmpdir(), `petstore-bench-${id}-`)),
      database,
      redisPrefix,
      ...(instances > 1 ? { instances } : {}),
      kind: "app",
      scenarios
    }
  }
  const fastifyOnPostgresAndRedis = ({ id, instances, label, role, scenarios }) => {
    const database = Pg.databaseName(id.replaceAll("-", "_"))
    const redisPrefix = Redis.prefixFor(id.replaceAll("-", "_"))
    return {
      id,
      label,
      role,
      argv: ["bench/peers/fastify-shared.mjs"],
      env: { BENCH_PG_URL: Pg.databaseUrl(database), BENCH_REDIS_URL: Redis.url(), BENCH_REDIS_PREFIX: redisPrefix },
      database,
      redisPrefix,
      ...(instances > 1 ? { instances } : {}),
      kind: "app",
      scenarios
    }
  }
  if (postgres.available && postgres.server && redis.available && redis.server) {
    list.push(oursOnPostgresAndRedis({ id: "shared", instances: SHARED_INSTANCES, label: `ours, ${SHARED_INSTANCES} instances, PostgreSQL + Redis`, scenarios: ["get", "post"] }))
    list.push(oursOnPostgresAndRedis({ id: "postgres-redis", instances: 1, label: "ours, 1 instance, PostgreSQL + Redis limiter", scenarios: ["get", "post"] }))
  }
  if (postgres.available && redis.available) {
    list.push(fastifyOnPostgresAndRedis({
      id: "fastify-shared",
      instances: SHARED_INSTANCES,
      label: `Fastify 5 + @fastify/rate-limit (Redis store, ioredis) + pg, ${SHARED_INSTANCES} instances`,
      role: "BASELINE (scale-out peer)",
      scenarios: ["get", "post"]
    }))
    // Compared with `postgres-redis`: GET and durable POST, one instance each.
    list.push(fastifyOnPostgresAndRedis({
      id: "fastify-shared1",
      instances: 1,
      label: "Fastify 5 + @fastify/rate-limit (Redis store, ioredis) + pg, 1 instance",
      role: "BASELINE (one-instance peer, PostgreSQL + Redis)",
      scenarios: ["get", "post"]
    }))
  }
  return list
}

/** A raw HTTP exchange (the bench's own setup traffic, not measured). */
export const request = (port, method, path, { body, headers = {} } = {}) =>
  new Promise((resolve, reject) => {
    const req = Http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      const chunks = []
      res.on("data", (c) => chunks.push(c))
      res.on("end", () => {
        let headerBytes = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`.length + 2
        for (let i = 0; i < res.rawHeaders.length; i += 2) headerBytes += res.rawHeaders[i].length + res.rawHeaders[i + 1].length + 4
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString(), headerBytes })
      })
    })
    req.on("error", reject)
    if (body !== undefined) req.end(body)
    else req.end()
  })

/**
 * The group commit's batch-size histogram so far, from a server's `/metrics`: `le` → cumulative
 * count, with the sum (writes) and count (batches); refused when the server exports none.
 */
export const commitBatches = async (port) => {
  const h = { buckets: new Map(), sum: Number.NaN, count: Number.NaN }
  for (const line of (await request(port, "GET", "/metrics", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).body.split("\n")) {
    const b = /^petstore_group_commit_batch_size_bucket\{le="([^"]+)"\} (\S+)/.exec(line)
    if (b !== null) h.buckets.set(b[1], Number(b[2]))
    const s = /^petstore_group_commit_batch_size_sum (\S+)/.exec(line)
    if (s !== null) h.sum = Number(s[1])
    const c = /^petstore_group_commit_batch_size_count (\S+)/.exec(line)
    if (c !== null) h.count = Number(c[1])
  }
  if (!Number.isFinite(h.sum) || !Number.isFinite(h.count)) throw new Error(`/metrics on port ${port} has no petstore_group_commit_batch_size (is PETSTORE_METRICS=false set?)`)
  return h
}

/** A free TCP port on the loopback interface. */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const s = Http.createServer()
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
    s.on("error", reject)
  })

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/**
 * Starts one process of a target (pinned to `cpu` with taskset when given) and waits until it answers
 * HTTP. Measures its start-up: `startupMs`, from the spawn to the first 200 on `GET /v1/pets` (an
 * app target with a key made through its admin API as soon as the port answers; NaN for a target
 * with no GET scenario), `startupCpuMs`, the CPU time (user + system) the process had used by then
 * (less dependent on the machine's other load than the wall time), and `idleRss`, its resident set
 * 1 s later, before any load or set-up.
 */
const startProcess = async (target, { cpu, root, nodeArgs = [] }) => {
  const port = await freePort()
  const argv = [process.execPath, ...nodeArgs, ...target.argv.map((a) => (a.startsWith("bench/") ? join(root, a) : a))]
  const command = cpu === undefined ? argv : ["taskset", "-c", String(cpu), ...argv]
  const env = { ...process.env, ...target.env, PORT: String(port), HOST: "127.0.0.1", PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN }
  delete env.NODE_OPTIONS
  const spawned = performance.now()
  // Our server runs in its own empty directory, so nothing it defaults to (./data/...) touches the repository.
  const child = spawn(command[0], command.slice(1), { cwd: target.cwd ?? root, env, stdio: ["ignore", "pipe", "pipe"] })
  let log = ""
  const keep = (d) => {
    log = (log + d).slice(-8_000)
  }
  child.stdout.on("data", keep)
  child.stderr.on("data", keep)
  let exited = null
  child.on("exit", (code, signal) => (exited = { code, signal }))
  const deadline = Date.now() + 30_000
  const wait = async (what, check) => {
    for (;;) {
      if (exited !== null) throw new Error(`${target.id} exited during start-up (${JSON.stringify(exited)}):\n${log}`)
      if (Date.now() > deadline) {
        child.kill("SIGKILL")
        throw new Error(`${target.id} did not ${what} within 30 s:\n${log}`)
      }
      try {
        const value = await check()
        if (value !== undefined) return value
      } catch {
        // not listening yet
      }
      await sleep(STARTUP_POLL_MS)
    }
  }
  // Whatever fails from here on, the process is not left running: the caller knows nothing of it yet.
  try {
    const first = await wait("answer HTTP", () => request(port, "GET", "/v1/pets"))
    let startupMs = Number.NaN
    let startupCpuMs = Number.NaN
    if ((target.scenarios ?? []).includes("get")) {
      const headers = target.kind === "raw" ? {} : { authorization: `Bearer ${await newKey({ ...target, port })}` }
      if (target.kind === "raw" && first.status === 200) startupMs = performance.now() - spawned
      else {
        await wait("answer GET /v1/pets with 200", async () => ((await request(port, "GET", "/v1/pets", { headers })).status === 200 ? true : undefined))
        startupMs = performance.now() - spawned
      }
      startupCpuMs = Proc.cpuSeconds(child.pid) * 1000
    }
    await sleep(1_000)
    if (exited !== null) throw new Error(`${target.id} exited during start-up (${JSON.stringify(exited)}):\n${log}`)
    const idleRss = Proc.rssBytes(child.pid)
    return { port, pid: child.pid, child, log: () => log, exited: () => exited, startupMs, startupCpuMs, idleRss }
  } catch (error) {
    if (exited === null) child.kill("SIGKILL")
    throw error
  }
}

/** How often start-up polls the port (the resolution of the start-up time). */
const STARTUP_POLL_MS = 5

/**
 * Starts a target's processes (`instances`, default 1), one after the other (the first migrates a
 * fresh database), and waits until each answers HTTP. `port`/`pid`/`child` are the first
 * instance's; `processes` holds all of them (`ports`, `pids`). `exited()` is the first exit of any.
 */
export const start = async (target, options) => {
  const processes = []
  try {
    for (let i = 0; i < (target.instances ?? 1); i++) processes.push(await startProcess(target, options))
  } catch (e) {
    for (const p of processes) if (p.exited() === null) p.child.kill("SIGKILL")
    throw e
  }
  const many = processes.length > 1
  return {
    ...target,
    processes,
    port: processes[0].port,
    ports: processes.map((p) => p.port),
    pid: processes[0].pid,
    pids: processes.map((p) => p.pid),
    // The first instance's start-up (it migrates a fresh database); the idle resident sets added up.
    startupMs: processes[0].startupMs,
    startupCpuMs: processes[0].startupCpuMs,
    idleRss: processes.reduce((a, p) => a + p.idleRss, 0),
    child: processes[0].child,
    log: () => processes.map((p, i) => (many ? `[instance ${i + 1}] ${p.log()}` : p.log())).join("\n"),
    exited: () => processes.map((p) => p.exited()).find((e) => e !== null) ?? null
  }
}

const stopProcess = async (one, { signal, graceMs }) => {
  if (one.exited() !== null) return one.exited()
  const done = new Promise((resolve) => one.child.once("exit", (code, sig) => resolve({ code, signal: sig })))
  one.child.kill(signal)
  const timer = setTimeout(() => one.child.kill("SIGKILL"), graceMs)
  const result = await done
  clearTimeout(timer)
  return result
}

/**
 * Stops a started target, all its instances at once: SIGTERM, then SIGKILL if one has not exited
 * within `graceMs`. The exit of the first instance that did not end cleanly, else the first's.
 */
export const stop = async (running, { signal = "SIGTERM", graceMs = 12_000 } = {}) => {
  const exits = await Promise.all((running.processes ?? [running]).map((p) => stopProcess(p, { signal, graceMs })))
  return exits.find((e) => e.code !== 0 && e.signal !== "SIGTERM") ?? exits[0]
}

/** A fresh API key on the target (a new account with limits far above the load, unless given), or the raw key. */
export const newKey = async (running, limits = BENCH_LIMITS) => {
  if (running.kind === "raw") return RAW_KEY
  const res = await request(running.port, "POST", "/admin/v1/accounts", {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ plan: "enterprise", limits })
  })
  if (res.status !== 201) throw new Error(`${running.id}: POST /admin/v1/accounts → ${res.status} ${res.body}`)
  return JSON.parse(res.body).key
}

/**
 * How many requests with `key` the target's own limiter has decided so far (before this call's own
 * request), read from its answers: the day's count of our server's `RateLimit` field
 * (`"day";r=<remaining>`: a daily quota does not refill), else `X-RateLimit-Remaining` of a fixed
 * window (the Fastify peers: a per-minute counter from the key's first request, so only for runs
 * shorter than that). The key must be fresh (limits BENCH_LIMITS). NaN when neither is there.
 */
export const decidedSoFar = async (running, key, { windowSafe = true } = {}) => {
  const res = await request(running.port, "GET", "/v1/pets?limit=1", { headers: { authorization: `Bearer ${key}` } })
  const day = /"day";r=(\d+)/.exec(String(res.headers.ratelimit ?? ""))
  if (day !== null) return BENCH_LIMITS.perDay - Number(day[1]) - 1
  const limit = Number(res.headers["x-ratelimit-limit"])
  const remaining = Number(res.headers["x-ratelimit-remaining"])
  if (windowSafe && limit === BENCH_LIMITS.perMinute && Number.isFinite(remaining) && res.headers.ratelimit === undefined) return limit - remaining - 1
  return Number.NaN
}

/** Creates the seed pets on an app target (ids 1..SEED_PETS on a fresh store). */
export const seed = async (running) => {
  if (running.kind === "raw") return
  const key = await newKey(running)
  for (let i = 1; i <= SEED_PETS; i++) {
    const res = await request(running.port, "POST", "/v1/pets", {
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(draft(i))
    })
    if (res.status !== 201) throw new Error(`${running.id}: seeding POST /v1/pets → ${res.status} ${res.body}`)
  }
}

/**
 * Checks that a target answers the GET scenario with exactly the expected page (on every instance:
 * seeded through the first, so the others read the shared store), and returns the response's header
 * size (our server sends more rate-limit fields than the peers do). On a target of several
 * instances, also checks that their limit is one: a key of 100 requests a minute (made through the
 * first instance) has its remaining count go down by one from one instance to the next. (With the
 * bench's own limits a token bucket refills faster than that between two requests.)
 */
export const checkPage = async (running, key) => {
  const expected = JSON.stringify(firstPage())
  const answers = []
  for (const port of running.ports ?? [running.port]) {
    const res = await request(port, "GET", `/v1/pets?limit=${PAGE_LIMIT}`, { headers: { authorization: `Bearer ${key}` } })
    if (res.status !== 200 || res.body !== expected) {
      throw new Error(`${running.id}: GET /v1/pets?limit=${PAGE_LIMIT} on port ${port} → ${res.status}, body differs from the expected page:\n${res.body.slice(0, 300)}`)
    }
    answers.push(res)
  }
  if (answers.length > 1) {
    const small = await newKey(running, { perMinute: 100, perDay: 1000 })
    const remaining = []
    for (const port of running.ports) {
      const res = await request(port, "GET", "/v1/pets?limit=1", { headers: { authorization: `Bearer ${small}` } })
      remaining.push(Number(res.headers["x-ratelimit-remaining"]))
    }
    if (!remaining.every((r, i) => i === 0 || r === remaining[i - 1] - 1)) {
      throw new Error(`${running.id}: the instances do not share the limit: X-RateLimit-Remaining ${remaining.join(", ")} on ports ${running.ports.join(", ")}`)
    }
  }
  const res = answers[0]
  return { headerBytes: res.headerBytes, bodyBytes: Buffer.byteLength(res.body), headers: Object.keys(res.headers), instances: answers.length }
}

/** Files the durable targets wrote (evidence the store really is on disk). */
export const dataFiles = (target) =>
  target.dataDir === undefined ? [] : readdirSync(target.dataDir).map((f) => f)
