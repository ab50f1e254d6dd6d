// Redis client comparison for the distributed rate limiter: node-redis 5 and ioredis 5, each running
// ONE atomic Lua decision per request (EVALSHA, 2 keys sharing a hash tag, 10 numeric ARGV, a reply
// of 8 integers), with the NOSCRIPT fallback each client has built in.
//
//   node bench/micro/redis-clients.mjs [--seconds 4] [--rounds 3] [--concurrency 1,32,256] [--warmup 0.3]
//                                      [--clients node-redis,ioredis] [--url redis://127.0.0.1:6379]
//                                      [--closed-port 6390] [--spare-port 6391] [--skip-outage]
//
// Keys live under `petstore-bench:<random>:` and are removed at the end (SCAN + UNLINK), also on error,
// SIGINT/SIGTERM or when the watchdog fires. Phases:
//   1. throughput: each round runs every concurrency for every client (client order rotated per round),
//      `--concurrency` loops each awaiting its own decision for a random one of 1,000 accounts, for
//      `--seconds` after `--warmup` seconds (plus a 1 s warm-up of each before the first round).
//      Reported: median over rounds of ops/s, p50/p99 latency, Node CPU µs/op (process.cpuUsage),
//      Redis CPU µs/op (INFO cpu) and EVALSHA calls per decision (INFO commandstats).
//   2. NOSCRIPT: 2 s at concurrency 256 per client with one SCRIPT FLUSH (separate connection) at 1 s.
//   3. round trips: MONITOR (raw socket) of the commands each client sends for a few decisions.
//   4. outage: calls against a closed port (`--closed-port`); clients without an 'error' listener (child
//      processes); then a redis-server of our own on `--spare-port`, started, killed, restarted and paused
//      (SIGSTOP) while decisions run, and killed at the end.
// Extra variants for --clients: `node-redis+deadline` (every call raced against a 50 ms timer) and
// `ioredis+timeout` (commandTimeout: 50), what a per-call deadline costs on the hot path; and
// `ioredis-nopipe` (enableAutoPipelining: false).
import { spawn } from "node:child_process"
import { once } from "node:events"
import net from "node:net"
import os from "node:os"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { setTimeout as sleep } from "node:timers/promises"
import { parseArgs } from "node:util"
import Redis from "ioredis"
import { createClient, defineScript } from "redis"
import * as Proc from "../lib/proc.mjs"

const { values: opts } = parseArgs({
  options: {
    seconds: { type: "string", default: "4" },
    rounds: { type: "string", default: "3" },
    concurrency: { type: "string", default: "1,32,256" },
    warmup: { type: "string", default: "0.3" },
    clients: { type: "string", default: "node-redis,ioredis" },
    url: { type: "string", default: process.env.REDISBENCH_URL ?? "redis://127.0.0.1:6379" },
    "closed-port": { type: "string", default: "6390" },
    "spare-port": { type: "string", default: "6391" },
    "skip-outage": { type: "boolean", default: false }
  }
})
const SECONDS = Number(opts.seconds)
const ROUNDS = Number(opts.rounds)
const CONCURRENCIES = opts.concurrency.split(",").map(Number)
const WARMUP = Number(opts.warmup)
const URL_ = new URL(opts.url)
const HOST = URL_.hostname
const PORT = Number(URL_.port || 6379)
const CLOSED_PORT = Number(opts["closed-port"])
const SPARE_PORT = Number(opts["spare-port"])
const ACCOUNTS = 1000
const DEADLINE_MS = 50

const log = (...xs) => console.error(...xs)
const PREFIX = `petstore-bench:${Math.random().toString(36).slice(2, 10)}:`

// --- the decision script -----------------------------------------------------------------------------------
// Token bucket in integer milli-tokens, a daily counter, and a ban ("standing") per API key that strikes
// of rejected requests turn on. Reply: allowed, reason (0 ok, 1 bucket, 2 daily, 3 banned), tokens left,
// daily remaining, retry-after ms, strikes, now ms, day number.
const LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local capacity, refillPerMs, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local dailyLimit, dayMs, dayOffset = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local strikeLimit, banMs = tonumber(ARGV[7]), tonumber(ARGV[8])
local usageTtl, standingTtl = tonumber(ARGV[9]), tonumber(ARGV[10])
local day = math.floor((now + dayOffset) / dayMs)

-- 1. ban check
local st = redis.call('HMGET', KEYS[2], 'until', 'strikes')
local banUntil = tonumber(st[1]) or 0
local strikes = tonumber(st[2]) or 0
if banUntil > now then
  return {0, 3, 0, 0, banUntil - now, strikes, now, day}
end

-- 2. refill (integer milli-tokens: refill is per millisecond) and the daily counter
local u = redis.call('HMGET', KEYS[1], 'tokens', 'ts', 'day', 'count')
local tokens = tonumber(u[1]) or capacity
local last = tonumber(u[2]) or now
if now > last then tokens = math.min(capacity, tokens + (now - last) * refillPerMs) end
local count = 0
if tonumber(u[3]) == day then count = tonumber(u[4]) or 0 end

-- 3. decide
local allowed, reason, retry = 1, 0, 0
if count >= dailyLimit then
  allowed, reason, retry = 0, 2, (day + 1) * dayMs - dayOffset - now
elseif tokens < cost then
  allowed, reason, retry = 0, 1, math.floor((cost - tokens + refillPerMs - 1) / refillPerMs)
else
  tokens, count = tokens - cost, count + 1
end

-- 4. write back
redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', now, 'day', day, 'count', count)
redis.call('PEXPIRE', KEYS[1], usageTtl)
if allowed == 0 then
  strikes = strikes + 1
  if strikes >= strikeLimit then banUntil, strikes, reason = now + banMs, 0, 3 end
  redis.call('HSET', KEYS[2], 'until', banUntil, 'strikes', strikes)
  redis.call('PEXPIRE', KEYS[2], standingTtl)
elseif strikes > 0 then
  strikes = 0
  redis.call('HSET', KEYS[2], 'strikes', 0)
  redis.call('PEXPIRE', KEYS[2], standingTtl)
end
return {allowed, reason, math.floor(tokens / 1000), dailyLimit - count, retry, strikes, now, day}
`
// capacity 200 tokens, 100 tokens/s, cost 1 token, 10M/day, UTC days, 20 strikes → 60 s ban, TTLs 2 d / 1 h.
// At these rates almost every decision is allowed, the common case (rejections would shortcut the script).
const ARGV = ["200000", "100", "1000", "10000000", "86400000", "0", "20", "60000", "172800000", "3600000"]
// Keys per account, built once: both keys share the hash tag {acct:N} (one slot in Redis Cluster).
const USAGE = Array.from({ length: ACCOUNTS }, (_, i) => `${PREFIX}{acct:${i}}:usage`)
const STANDING = Array.from({ length: ACCOUNTS }, (_, i) => `${PREFIX}{acct:${i}}:standing:key${(i * 7919) % 100_000}`)
const randomAccount = () => Math.floor(Math.random() * ACCOUNTS)

// The same reply → decision step for both clients (node-redis runs it as transformReply).
const toDecision = (r) => {
  if (!Array.isArray(r) || r.length !== 8 || typeof r[0] !== "number") throw new Error(`bad reply ${JSON.stringify(r)}`)
  return { allowed: r[0] === 1, reason: r[1], tokens: r[2], dailyRemaining: r[3], retryAfterMs: r[4], strikes: r[5], now: r[6], day: r[7] }
}

// --- clients: make(port, extra) → { call(account) → Promise<decision>, ready, close } ------------------------
// Production options: fail fast while disconnected (no offline queue), reconnect with a capped backoff.
const backoff = (attempt) => Math.min(20 * 2 ** attempt, 200) // 20, 40, 80, 160, 200, 200 … ms
const nodeRedisOptions = (port) => ({
  socket: { host: HOST, port, connectTimeout: 500, reconnectStrategy: (retries) => backoff(retries) },
  disableOfflineQueue: true
})
const ioredisOptions = (port) => ({
  host: HOST,
  port,
  enableAutoPipelining: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: 500,
  retryStrategy: (times) => backoff(times - 1)
})

/** Rejects after `ms` unless `p` settles first (p is still awaited by the client; its result is dropped). */
const withDeadline = (p, ms) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`deadline of ${ms} ms exceeded`)), ms)
    p.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e))
    )
  })

let clientErrors = 0 // 'error' events (expected during the outage phase only)
const onClientError = () => clientErrors++

// node-redis: the script becomes a client method; it sends EVALSHA and, on NOSCRIPT, EVAL once.
const makeNodeRedis = ({ deadline = false } = {}) => (port, extra = {}) => {
  const client = createClient({
    ...nodeRedisOptions(port),
    ...extra,
    scripts: {
      rateLimit: defineScript({
        SCRIPT: LUA,
        NUMBER_OF_KEYS: 2,
        parseCommand(parser, usage, standing, argv) {
          parser.pushKey(usage)
          parser.pushKey(standing)
          parser.push(...argv)
        },
        transformReply: toDecision
      })
    }
  })
  client.on("error", onClientError)
  // connect() only settles once connected (or when the reconnect strategy gives up): never await it
  // unbounded at start-up, or a server cannot boot while Redis is down.
  const connecting = client.connect()
  connecting.catch(() => {})
  const call = deadline
    ? (i) => withDeadline(client.rateLimit(USAGE[i], STANDING[i], ARGV), DEADLINE_MS)
    : (i) => client.rateLimit(USAGE[i], STANDING[i], ARGV)
  return { call, ready: connecting, close: async () => client.isOpen && client.destroy() }
}

// ioredis: defineCommand adds the method; EVALSHA, EVAL on NOSCRIPT (and as the first call on a socket).
const makeIoredis = ({ timeout = false, pipeline = true } = {}) => (port, extra = {}) => {
  const client = new Redis({
    ...ioredisOptions(port),
    ...(timeout ? { commandTimeout: DEADLINE_MS } : {}),
    ...(pipeline ? {} : { enableAutoPipelining: false }),
    ...extra
  })
  client.defineCommand("rateLimit", { numberOfKeys: 2, lua: LUA })
  client.on("error", onClientError)
  const ready = new Promise((resolve) => client.once("ready", resolve)) // (events.once would reject on 'error')
  const call = async (i) => toDecision(await client.rateLimit(USAGE[i], STANDING[i], ...ARGV))
  return { call, ready, close: async () => client.disconnect() }
}

const CLIENTS = {
  "node-redis": { label: "node-redis 5", make: makeNodeRedis() },
  ioredis: { label: "ioredis 5 (auto-pipelining)", make: makeIoredis() },
  // Timeouts are counted, not fatal, for the variants with a deadline (a loaded machine can exceed it).
  "node-redis+deadline": { label: `node-redis 5 + ${DEADLINE_MS} ms deadline`, make: makeNodeRedis({ deadline: true }), timeouts: true },
  "ioredis+timeout": { label: `ioredis 5 + commandTimeout ${DEADLINE_MS}`, make: makeIoredis({ timeout: true }), timeouts: true },
  "ioredis-nopipe": { label: "ioredis 5 (no auto-pipelining)", make: makeIoredis({ pipeline: false }) }
}

// --- helpers -------------------------------------------------------------------------------------------------
const bounded = (p, ms, what) =>
  Promise.race([p, sleep(ms, undefined, { ref: false }).then(() => Promise.reject(new Error(`${what}: no answer in ${ms} ms`)))])
const settleWithin = (p, ms) =>
  Promise.race([
    Promise.resolve(p).then(() => "fulfilled", () => "rejected"),
    sleep(ms, "pending", { ref: false })
  ])
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

// Admin connection (node-redis, no scripts): INFO, SCRIPT FLUSH, SCAN/UNLINK.
let admin
const info = async (section) => {
  const text = await admin.sendCommand(["INFO", section])
  return Object.fromEntries(
    text.split("\r\n").filter((l) => l.includes(":")).map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1)])
  )
}
const redisCpuSeconds = async () => {
  const cpu = await info("cpu")
  return Number(cpu.used_cpu_user) + Number(cpu.used_cpu_sys)
}
/** { command: { calls, errors } } from INFO commandstats (errors = rejected + failed calls). */
const commandStats = async () => {
  const out = {}
  for (const [k, v] of Object.entries(await info("commandstats"))) {
    const f = Object.fromEntries(v.split(",").map((kv) => kv.split("=")))
    out[k.replace("cmdstat_", "")] = { calls: Number(f.calls), errors: Number(f.rejected_calls ?? 0) + Number(f.failed_calls ?? 0) }
  }
  return out
}
const statDelta = (a, b, cmd) => ({
  calls: (b[cmd]?.calls ?? 0) - (a[cmd]?.calls ?? 0),
  errors: (b[cmd]?.errors ?? 0) - (a[cmd]?.errors ?? 0)
})

// --- measurement ---------------------------------------------------------------------------------------------
let stopAll = false

/** `concurrency` loops each awaiting `call(randomAccount())` for `seconds`; errors are thrown unless counted. */
const measure = async (call, concurrency, seconds, { countErrors = false, at } = {}) => {
  let stop = false
  let ops = 0
  let allowed = 0
  let errors = 0
  const errorKinds = new Map()
  const lat = []
  const loop = async () => {
    while (!stop && !stopAll) {
      const t0 = process.hrtime.bigint()
      try {
        if ((await call(randomAccount())).allowed) allowed++
      } catch (e) {
        if (!countErrors) throw e
        errors++
        errorKinds.set(e.message, (errorKinds.get(e.message) ?? 0) + 1)
        await sleep(1) // never spin on instant rejections: that would starve every timer
        continue
      }
      lat.push(Number(process.hrtime.bigint() - t0))
      ops++
    }
  }
  const timer = setTimeout(() => (stop = true), seconds * 1000)
  const atTimer = at && setTimeout(at.fn, at.seconds * 1000)
  const machine0 = Proc.machineBusySeconds()
  const [redis0, stats0] = [await redisCpuSeconds(), await commandStats()]
  const cpu0 = process.cpuUsage()
  const start = process.hrtime.bigint()
  try {
    await Promise.all(Array.from({ length: concurrency }, loop))
  } finally {
    stop = true
    clearTimeout(timer)
    clearTimeout(atTimer)
  }
  const elapsed = Number(process.hrtime.bigint() - start)
  const cpu = process.cpuUsage(cpu0)
  const [redis1, stats1] = [await redisCpuSeconds(), await commandStats()]
  const cpuUs = cpu.user + cpu.system
  const redisUs = (redis1 - redis0) * 1e6
  const otherUs = (Proc.machineBusySeconds() - machine0) * 1e6 - cpuUs - redisUs
  return {
    ops, allowed, errors, errorKinds, elapsed, lat, cpuUs, redisUs, otherUs,
    evalsha: statDelta(stats0, stats1, "evalsha"),
    eval: statDelta(stats0, stats1, "eval")
  }
}

// --- MONITOR on a raw socket: which commands reach Redis, and from which connection ----------------------------
const openMonitor = async () => {
  const sock = net.createConnection({ host: HOST, port: PORT })
  sock.on("error", () => {})
  await once(sock, "connect")
  sock.setEncoding("utf8")
  const lines = []
  let buf = ""
  sock.on("data", (d) => {
    buf += d
    for (let i; (i = buf.indexOf("\r\n")) >= 0; buf = buf.slice(i + 2)) lines.push(buf.slice(0, i))
  })
  sock.write("MONITOR\r\n")
  for (let n = 0; lines[0] !== "+OK" && n < 100; n++) await sleep(10)
  lines.length = 0
  // Each line: +<time> [<db> <addr>|lua] "<command>" "<arg>"…
  const take = async () => {
    await sleep(100) // let the last lines arrive
    return lines.splice(0).flatMap((l) => {
      const m = /^\+[\d.]+ \[\d+ ([^\]]+)\] "([^"]+)"(?: "([^"]+)")?/.exec(l)
      if (m === null) return []
      const cmd = m[2].toUpperCase()
      return [{ from: m[1], cmd: cmd === "CLIENT" && m[3] ? `CLIENT ${m[3].toUpperCase()}` : cmd }]
    })
  }
  return { take, close: () => sock.destroy() }
}
const summarize = (cmds) => {
  const counts = new Map()
  for (const c of cmds) counts.set(c.cmd, (counts.get(c.cmd) ?? 0) + 1)
  return [...counts].map(([k, n]) => `${k} ×${n}`).join(", ") || "none"
}

const roundTrips = async (name, client) => {
  const adminAddr = /addr=(\S+)/.exec(await admin.sendCommand(["CLIENT", "INFO"]))[1]
  const mon = await openMonitor()
  try {
    // Commands sent by connections (not the admin) vs. run inside the script ("lua").
    const capture = async (fn) => {
      await fn()
      const cmds = (await mon.take()).filter((c) => c.from !== adminAddr)
      return { sent: cmds.filter((c) => c.from !== "lua"), inScript: cmds.filter((c) => c.from === "lua") }
    }
    const steady = await capture(async () => {
      for (let i = 0; i < 10; i++) await client.call(randomAccount())
    })
    const burst = await capture(() => Promise.all(Array.from({ length: 32 }, () => client.call(randomAccount()))))
    await admin.sendCommand(["SCRIPT", "FLUSH"])
    const afterFlush = await capture(async () => {
      await client.call(randomAccount())
      await client.call(randomAccount())
    })
    let fresh
    const freshRun = await capture(async () => {
      fresh = CLIENTS[name].make(PORT)
      await bounded(fresh.ready, 5000, "fresh connection")
      await fresh.call(randomAccount())
      await fresh.call(randomAccount())
    })
    await fresh.close()
    return {
      steady: `${summarize(steady.sent)} for 10 sequential decisions (inside the script, per decision: ${summarize(steady.inScript.slice(0, steady.inScript.length / 10))})`,
      burst: `${summarize(burst.sent)} for 32 concurrent decisions`,
      afterFlush: `${summarize(afterFlush.sent)} for 2 decisions right after SCRIPT FLUSH (in order: ${afterFlush.sent.map((c) => c.cmd).join(", ")})`,
      fresh: `${freshRun.sent.map((c) => c.cmd).join(", ")} for connect + 2 decisions on a new client`
    }
  } finally {
    mon.close()
  }
}

// --- outage: a closed port, then a redis-server of our own that dies, returns and stalls ----------------------
let spare // the child redis-server
const startSpare = async () => {
  spare = spawn("redis-server", ["--port", String(SPARE_PORT), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", os.tmpdir()], {
    stdio: "ignore"
  })
  spare.on("error", () => {})
  // Ready once it answers PING.
  for (let n = 0; n < 300; n++) {
    const ok = await new Promise((resolve) => {
      const s = net.createConnection({ host: "127.0.0.1", port: SPARE_PORT })
      s.setTimeout(500, () => (s.destroy(), resolve(false)))
      s.on("error", () => resolve(false))
      s.on("connect", () => s.write("PING\r\n"))
      s.on("data", (d) => (s.destroy(), resolve(d.toString().startsWith("+PONG"))))
    })
    if (ok) return performance.now()
    await sleep(10)
  }
  throw new Error(`redis-server on port ${SPARE_PORT} did not start`)
}
const killSpare = async () => {
  if (spare === undefined || spare.exitCode !== null || spare.signalCode !== null) return
  const exited = once(spare, "exit")
  spare.kill("SIGKILL")
  await exited
}
const portInUse = (port) =>
  new Promise((resolve) => {
    const s = net.createConnection({ host: "127.0.0.1", port })
    s.on("connect", () => (s.destroy(), resolve(true)))
    s.on("error", () => resolve(false))
  })

const closedPortVariants = [
  { name: "node-redis defaults", make: makeNodeRedis(), extra: { socket: { host: HOST, port: CLOSED_PORT }, disableOfflineQueue: false } },
  { name: "node-redis fail-fast", make: makeNodeRedis(), extra: {} },
  { name: "ioredis defaults (+auto-pipelining)", make: (port) => makeIoredis()(port, { enableOfflineQueue: true, maxRetriesPerRequest: 20, connectTimeout: 10_000, retryStrategy: (n) => Math.min(n * 50, 2000) }) },
  { name: "ioredis fail-fast", make: makeIoredis(), extra: {} }
]

/** Calls against a port nobody listens on: how long until each call fails, and does anything hang? */
const closedPort = async () => {
  const rows = []
  for (const v of closedPortVariants) {
    const c = v.make(CLOSED_PORT, v.extra)
    await sleep(100) // let the first connection attempt fail
    const times = []
    let outcome = "fulfilled"
    let message = ""
    for (let k = 0; k < 20 && outcome !== "pending"; k++) {
      const t0 = performance.now()
      const p = c.call(randomAccount())
      p.catch((e) => (message = e.message))
      outcome = await settleWithin(p, 1000)
      times.push(performance.now() - t0)
    }
    const connect = await settleWithin(c.ready, 0)
    rows.push({ name: v.name, outcome, ms: outcome === "pending" ? "> 1000 (still pending)" : `median ${median(times).toFixed(2)}, max ${Math.max(...times).toFixed(2)}`, message, connect })
    await c.close().catch(() => {})
  }
  return rows
}

/**
 * A client WITHOUT an 'error' listener, in a child process: one client on the closed port, one connected
 * to the spare server, which we then kill and restart. Does the process survive, and do they reconnect?
 */
const noErrorListener = async (which) => {
  const url = JSON.stringify(import.meta.resolve(which))
  const code =
    which === "redis"
      ? `const { createClient } = await import(${url})
         const make = (port) => createClient({ socket: { host: "127.0.0.1", port, reconnectStrategy: 50 }, disableOfflineQueue: true })
         const closed = make(${CLOSED_PORT}), c = make(${SPARE_PORT})
         let state = "pending"
         closed.connect().then(() => (state = "resolved"), (e) => (state = "rejected (" + e.message + ")"))
         await c.connect(); await new Promise((r) => setTimeout(r, 300))
         console.log("closed-port client after 300 ms: connect() " + state + ", isOpen " + closed.isOpen + ", isReady " + closed.isReady)
         console.log("READY")
         process.stdin.once("data", () => { console.log("after the restart: isReady " + c.isReady); process.exit(0) })`
      : `const { default: Redis } = await import(${url})
         const make = (port) => new Redis({ host: "127.0.0.1", port, retryStrategy: () => 50, enableOfflineQueue: false, maxRetriesPerRequest: 0 })
         const closed = make(${CLOSED_PORT}), c = make(${SPARE_PORT})
         await new Promise((r) => c.once("ready", r)); await new Promise((r) => setTimeout(r, 300))
         console.log("closed-port client after 300 ms: status " + closed.status)
         console.log("READY")
         process.stdin.once("data", () => { console.log("after the restart: status " + c.status); process.exit(0) })`
  await startSpare()
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["pipe", "pipe", "pipe"] })
  child.stdin.on("error", () => {})
  let out = ""
  let err = ""
  child.stdout.on("data", (d) => (out += d))
  child.stderr.on("data", (d) => (err += d))
  const exited = once(child, "exit")
  const timer = setTimeout(() => child.kill("SIGKILL"), 6000)
  for (let n = 0; n < 300 && !out.includes("READY") && child.exitCode === null; n++) await sleep(10)
  await killSpare()
  await sleep(500)
  await startSpare()
  await sleep(700)
  child.stdin.write("report\n")
  const [exit, signal] = await exited
  clearTimeout(timer)
  await killSpare()
  const said = out.split("\n").filter((l) => l && l !== "READY").join("; ")
  const firstErr = err.split("\n").find((l) => /error/i.test(l))?.trim() ?? ""
  const fate = said.includes("after the restart") ? "survived the kill" : "died when the connected server was killed"
  return `${fate} (exit ${exit ?? signal}); ${said}${firstErr ? `; stderr: ${firstErr.slice(0, 110)}` : ""}`
}

const lifecycleVariants = [
  { name: "node-redis fail-fast", make: () => makeNodeRedis()(SPARE_PORT) },
  { name: `node-redis fail-fast + ${DEADLINE_MS} ms deadline`, make: () => makeNodeRedis({ deadline: true })(SPARE_PORT) },
  { name: `ioredis fail-fast, commandTimeout ${DEADLINE_MS}`, make: () => makeIoredis({ timeout: true })(SPARE_PORT) },
  { name: `ioredis fail-fast, maxRetriesPerRequest 1, commandTimeout ${DEADLINE_MS}`, make: () => makeIoredis({ timeout: true })(SPARE_PORT, { maxRetriesPerRequest: 1 }) }
]

/**
 * All variants run decisions at once (8 loops each) against the spare server while it is down at
 * start (0.5 s), up (1.5 s), SIGKILLed (1 s), restarted empty (1.5 s), SIGSTOPped (1.5 s), resumed (1 s).
 * A failed call waits 2 ms before the next (requests arrive through I/O; a loop of instant rejections
 * would starve the event loop and the reconnect timers).
 */
const lifecycle = async () => {
  let phase = "down at start"
  const stats = lifecycleVariants.map(() => new Map()) // phase → { ok, err, errMs: [], okMaxMs, kinds, slowest }
  // Event-loop delay per phase: tells a client stall from this process (or machine) being busy.
  const loopDelay = monitorEventLoopDelay({ resolution: 5 })
  loopDelay.enable()
  const lagMs = {}
  const setPhase = (next) => {
    lagMs[phase] = loopDelay.max / 1e6
    loopDelay.reset()
    phase = next
  }
  const firstOk = lifecycleVariants.map(() => ({})) // phase → time of the first successful decision
  const readyAt = {}
  let stop = false
  const clients = lifecycleVariants.map((v) => v.make())
  const loop = async (vi) => {
    const c = clients[vi]
    while (!stop) {
      const ph = phase
      const t0 = performance.now()
      const s = stats[vi].get(ph) ?? { ok: 0, err: 0, errMs: [], okMaxMs: 0, kinds: new Map(), slowest: [0, ""] }
      stats[vi].set(ph, s)
      try {
        await c.call(randomAccount())
        const t1 = performance.now()
        s.ok++
        s.okMaxMs = Math.max(s.okMaxMs, t1 - t0)
        firstOk[vi][ph] ??= t1
      } catch (e) {
        s.err++
        const ms = performance.now() - t0
        s.errMs.push(ms)
        if (ms > s.slowest[0]) s.slowest = [ms, e.message.slice(0, 50)]
        const kind = e.message.replace(/\d+/g, "N").slice(0, 70)
        s.kinds.set(kind, (s.kinds.get(kind) ?? 0) + 1)
        await sleep(2)
      }
    }
  }
  const loops = lifecycleVariants.flatMap((_, vi) => Array.from({ length: 8 }, () => loop(vi)))
  await sleep(500)
  setPhase("up")
  readyAt[phase] = await startSpare()
  await sleep(1500)
  setPhase("killed")
  await killSpare()
  await sleep(1000)
  setPhase("restarted")
  readyAt[phase] = await startSpare()
  await sleep(1500)
  setPhase("stalled")
  spare.kill("SIGSTOP")
  await sleep(1500)
  setPhase("resumed")
  spare.kill("SIGCONT")
  await sleep(1000)
  setPhase("end")
  loopDelay.disable()
  stop = true
  // Every loop must finish: a call still pending 3 s after the end is a hang.
  const finished = await settleWithin(Promise.all(loops), 3000)
  for (const c of clients) await c.close().catch(() => {})
  await killSpare()
  // ms from the server answering our PING to the first success (negative: the client got there first)
  const firstOkAfter = firstOk.map((f) => Object.fromEntries(Object.keys(readyAt).filter((ph) => f[ph] !== undefined).map((ph) => [ph, f[ph] - readyAt[ph]])))
  return { stats, firstOkAfter, finished, lagMs }
}

// --- cleanup ---------------------------------------------------------------------------------------------------
const open = []
let unhandled = 0
process.on("unhandledRejection", (e) => {
  unhandled++
  log(`unhandled rejection: ${e?.message ?? e}`)
})

const removeKeys = async () => {
  let cursor = "0"
  let removed = 0
  do {
    const [next, keys] = await admin.sendCommand(["SCAN", cursor, "MATCH", `${PREFIX}*`, "COUNT", "1000"])
    cursor = next
    if (keys.length > 0) removed += await admin.sendCommand(["UNLINK", ...keys])
  } while (cursor !== "0")
  return removed
}

const withTimeout = (p, ms) => Promise.race([Promise.resolve(p).catch(() => {}), sleep(ms, undefined, { ref: false })])

let cleaning
const cleanup = () =>
  (cleaning ??= (async () => {
    stopAll = true
    for (const c of open) await withTimeout(c.close(), 2000)
    if (spare !== undefined) {
      spare.kill("SIGCONT")
      await withTimeout(killSpare(), 2000)
    }
    if (admin?.isReady) {
      const removed = await withTimeout(removeKeys(), 10_000)
      log(`removed ${removed ?? "?"} keys under ${PREFIX}`)
      await withTimeout(admin.close(), 2000)
    }
  })())
process.on("exit", () => spare?.exitCode === null && spare.signalCode === null && spare.kill("SIGKILL"))

let aborting = false
const abort = (code, why) => {
  if (aborting) return
  aborting = true
  log(why)
  cleanup().finally(() => process.exit(code))
}
process.once("SIGINT", () => abort(130, "interrupted: cleaning up"))
process.once("SIGTERM", () => abort(143, "terminated: cleaning up"))

// --- main ----------------------------------------------------------------------------------------------------
const main = async () => {
  const names = opts.clients.split(",").map((s) => s.trim()).filter(Boolean)
  for (const n of names) if (!(n in CLIENTS)) throw new Error(`unknown client ${n} (known: ${Object.keys(CLIENTS).join(", ")})`)

  // The run must end by itself: expected duration + 60 s, then clean up and fail.
  const blocks = ROUNDS * CONCURRENCIES.length * names.length
  const expected = blocks * (SECONDS + WARMUP + 0.1) + CONCURRENCIES.length * names.length + 3 * names.length + (opts["skip-outage"] ? 0 : 20)
  log(`expected duration ~${Math.round(expected)} s; keys under ${PREFIX}`)
  setTimeout(() => abort(2, "watchdog: run took too long"), (expected + 60) * 1000).unref()

  admin = createClient({ socket: { host: HOST, port: PORT, reconnectStrategy: false } })
  admin.on("error", () => {})
  await bounded(admin.connect(), 5000, "admin connection")
  const server = await info("server")

  const clients = {}
  for (const n of names) {
    clients[n] = CLIENTS[n].make(PORT)
    open.push(clients[n])
    await bounded(clients[n].ready, 5000, `${n} connection`)
  }

  // Warm every client and concurrency up once (JIT, script cache) before measuring.
  for (const c of CONCURRENCIES) for (const n of names) await measure(clients[n].call, c, 1, { countErrors: CLIENTS[n].timeouts === true })

  const results = {} // `${concurrency}/${client}` → one entry per round
  for (let round = 0; round < ROUNDS && !stopAll; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length])
    for (const conc of CONCURRENCIES) {
      for (const n of order) {
        if (stopAll) break
        const countErrors = CLIENTS[n].timeouts === true
        await measure(clients[n].call, conc, WARMUP, { countErrors })
        const m = await measure(clients[n].call, conc, SECONDS, { countErrors })
        const lat = Float64Array.from(m.lat).sort()
        const r = {
          opsPerSec: m.ops / (m.elapsed / 1e9),
          p50: percentile(lat, 0.5) / 1e6,
          p99: percentile(lat, 0.99) / 1e6,
          cpuPerOp: m.cpuUs / m.ops,
          redisPerOp: m.redisUs / m.ops,
          evalshaPerOp: m.evalsha.calls / m.ops,
          evals: m.eval.calls,
          allowed: m.allowed / m.ops,
          failed: m.errors,
          otherCores: Math.max(0, m.otherUs) / (m.elapsed / 1e3)
        }
        ;(results[`${conc}/${n}`] ??= []).push(r)
        log(
          `round ${round + 1}/${ROUNDS} c=${String(conc).padEnd(3)} ${n.padEnd(20)} ${r.opsPerSec.toFixed(0).padStart(7)}/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  cpu ${r.cpuPerOp.toFixed(1)} µs  redis ${r.redisPerOp.toFixed(1)} µs  evalsha/op ${r.evalshaPerOp.toFixed(3)}  eval ${r.evals}  allowed ${(r.allowed * 100).toFixed(1)}%  failed ${r.failed}  other ${r.otherCores.toFixed(2)} cores`
        )
      }
    }
  }
  if (stopAll) return

  // NOSCRIPT: one SCRIPT FLUSH from the admin connection 1 s into a 2 s block at concurrency 256.
  const noscript = {}
  for (const n of names) {
    const m = await measure(clients[n].call, 256, 2, { countErrors: true, at: { seconds: 1, fn: () => admin.sendCommand(["SCRIPT", "FLUSH"]) } })
    noscript[n] = m
    log(`noscript ${n}: ${m.ops} ok, ${m.errors} errors, ${m.evalsha.errors} NOSCRIPT replies, ${m.eval.calls} EVAL fallbacks`)
  }

  // Round trips per decision.
  const trips = {}
  for (const n of names) {
    trips[n] = await roundTrips(n, clients[n])
    log(`round trips ${n}: ${JSON.stringify(trips[n])}`)
  }
  for (const c of open.splice(0)) await c.close()

  // Outage.
  let outage
  if (!opts["skip-outage"]) {
    if (await portInUse(CLOSED_PORT)) throw new Error(`port ${CLOSED_PORT} is in use: pick another --closed-port`)
    if (await portInUse(SPARE_PORT)) throw new Error(`port ${SPARE_PORT} is in use: pick another --spare-port`)
    const errors0 = clientErrors
    const closed = await closedPort()
    const listeners = { "node-redis": await noErrorListener("redis"), ioredis: await noErrorListener("ioredis") }
    const life = await lifecycle()
    outage = { closed, listeners, life, errorEvents: clientErrors - errors0 }
  }

  // --- report ---
  const all = Object.values(results).flat()
  const lines = [
    `Redis clients, one EVALSHA decision per call: ${ROUNDS} rounds × ${SECONDS} s per concurrency and client, ${ACCOUNTS} accounts at random; ` +
      `Node ${process.version}, Redis ${server.redis_version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}); ` +
      `other processes kept ${median(all.map((r) => r.otherCores)).toFixed(2)} cores busy (median of blocks).`,
    "",
    "Medians over rounds. Node CPU = this process's user+system time per decision; Redis CPU = redis-server's (INFO cpu) per decision; " +
      "EVALSHA/op = evalsha calls counted by Redis (INFO commandstats) per decision; EVALs = NOSCRIPT fallbacks (all rounds); " +
      "failed = decisions that failed (all rounds; only the deadline variants may fail without aborting); x best = ratio to the best client at that concurrency.",
    "",
    "| concurrency | client | ops/s | x best | p50 ms | p99 ms | Node CPU µs/op | x best | Redis CPU µs/op | EVALSHA/op | EVALs | failed |",
    "|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  ]
  for (const conc of CONCURRENCIES) {
    const rows = names.map((n) => {
      const rs = results[`${conc}/${n}`]
      const of = (k) => median(rs.map((r) => r[k]))
      return { n, ops: of("opsPerSec"), p50: of("p50"), p99: of("p99"), cpu: of("cpuPerOp"), redis: of("redisPerOp"), evalsha: of("evalshaPerOp"), evals: rs.reduce((s, r) => s + r.evals, 0), failed: rs.reduce((s, r) => s + r.failed, 0) }
    })
    const bestOps = Math.max(...rows.map((r) => r.ops))
    const bestCpu = Math.min(...rows.map((r) => r.cpu))
    for (const r of rows) {
      const cells = [conc, CLIENTS[r.n].label, r.ops.toFixed(0), (r.ops / bestOps).toFixed(2), r.p50.toFixed(3), r.p99.toFixed(3),
        r.cpu.toFixed(1), (r.cpu / bestCpu).toFixed(2), r.redis.toFixed(1), r.evalsha.toFixed(3), r.evals, r.failed]
      lines.push(`| ${cells.join(" | ")} |`)
    }
  }
  lines.push("", "NOSCRIPT (SCRIPT FLUSH from another connection 1 s into 2 s at concurrency 256):", "")
  for (const n of names) {
    const m = noscript[n]
    const kinds = [...m.errorKinds].map(([k, c]) => `${c}× ${k}`).join("; ")
    lines.push(`- ${CLIENTS[n].label}: ${m.ops} decisions ok, ${m.errors} failed${kinds ? ` (${kinds})` : ""}; Redis answered ${m.evalsha.errors} EVALSHA with NOSCRIPT and got ${m.eval.calls} EVAL fallbacks; max latency ${(Math.max(...m.lat) / 1e6).toFixed(1)} ms`)
  }
  lines.push("", "Round trips (MONITOR):", "")
  for (const n of names) for (const [k, v] of Object.entries(trips[n])) lines.push(`- ${CLIENTS[n].label}, ${k}: ${v}`)
  if (outage) {
    lines.push("", `Outage, closed port ${CLOSED_PORT} (20 sequential calls, each given 1 s):`, "")
    lines.push("| client options | call outcome | time to fail ms | error | connect() / ready |", "|---|---|---|---|---|")
    for (const r of outage.closed) lines.push(`| ${r.name} | ${r.outcome} | ${r.ms} | ${r.message.slice(0, 80)} | ${r.connect} |`)
    lines.push("", `Without an 'error' listener (child process: one client on port ${CLOSED_PORT}, one connected to ${SPARE_PORT}, which is then killed and restarted):`, "")
    for (const [k, v] of Object.entries(outage.listeners)) lines.push(`- ${k}: ${v}`)
    const { stats, firstOkAfter, finished, lagMs } = outage.life
    lines.push(
      "",
      `Outage lifecycle on port ${SPARE_PORT}: 8 loops per variant, all variants at once; a call counts in the phase it started in ` +
        `(so calls in flight when the server is killed show under "up"); "first ok" = ms from the server answering our PING to the ` +
        `variant's first successful decision; slowest failure = its time and message. Event-loop delay (max) per phase, ms: ` +
        Object.entries(lagMs).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ") + ".",
      ""
    )
    lines.push("| variant | phase | ok | failed | fail ms p50 / max | slowest failure | max ok ms | first ok | errors |", "|---|---|--:|--:|---|---|--:|--:|---|")
    lifecycleVariants.forEach((v, vi) => {
      for (const [ph, s] of stats[vi]) {
        const e = Float64Array.from(s.errMs).sort()
        const kinds = [...s.kinds].sort((a, b) => b[1] - a[1]).slice(0, 2).map(([k, c]) => `${c}× ${k}`).join("; ")
        const first = firstOkAfter[vi][ph]
        lines.push(`| ${v.name} | ${ph} | ${s.ok} | ${s.err} | ${e.length ? `${percentile(e, 0.5).toFixed(1)} / ${e.at(-1).toFixed(1)}` : "-"} | ${s.slowest[1]} | ${s.okMaxMs.toFixed(1)} | ${first === undefined ? "-" : first.toFixed(0)} | ${kinds} |`)
      }
    })
    lines.push("", `All decision loops finished after the lifecycle: ${finished === "fulfilled" ? "yes (nothing hung)" : `NO (${finished})`}; 'error' events seen by listeners: ${outage.errorEvents}; unhandled rejections in this process: ${unhandled}.`)
  }
  console.log(lines.join("\n"))
}

main()
  .then(() => cleanup())
  .then(() => process.exit(0))
  .catch((e) => abort(1, e?.stack ?? String(e)))
