// Webhook delivery on one server instance (SQLite, then PostgreSQL when it is reachable): deliveries
// per second to a local receiver, and the time from the 202 to the delivery at light load (one
// message at a time). Part of `pnpm bench` (bench/run.mjs, the report's "Webhook delivery"); alone:
//
//   node bench/webhooks/deliveries.mjs [messages]      (after `pnpm run build`; default 5000 messages)
//
// For each store: a fresh server (`petstore serve` as shipped, PETSTORE_WEBHOOK_ALLOW_PRIVATE=true), an account
// with a roomy limit whose endpoint is a node:http receiver in this process (204 at once, keep-alive);
// first `light` messages one at a time (202 → arrival), then a backlog of `messages` submitted by 50
// clients at once. Deliveries per second: end to end (first submission to last arrival, so never more
// than the submissions' own rate), and the drain rate (what was still queued when the last 202 came
// back ÷ the time it took to arrive), the rate of delivery alone.
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Pg from "../lib/pg.mjs"
import * as Proc from "../lib/proc.mjs"
import { shipped } from "../lib/targets.mjs"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
// The server as shipped (the `petstore` command: the bundle from its code cache), as the other targets.
const BIN = shipped(ROOT)
const TOKEN = "bench-admin-token-0123456789"
const CLIENTS = 50

const freePort = () => new Promise((resolve) => {
  const probe = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address()
    probe.close(() => resolve(port))
  })
})

const receiver = async () => {
  const arrivals = new Map()
  const waiters = new Map()
  let deliveries = 0
  const server = http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      deliveries++
      const id = req.headers["webhook-id"]
      if (!arrivals.has(id)) arrivals.set(id, performance.now())
      waiters.get(id)?.()
      res.writeHead(204).end()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    arrivals,
    deliveries: () => deliveries,
    arrived: (id) => arrivals.has(id) ? Promise.resolve() : new Promise((r) => waiters.set(id, r)),
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r) })
  }
}

const serve = async (env, cpu, nodeFlags) => {
  const port = await freePort()
  const args = [...nodeFlags, BIN, "serve"]
  const child = spawn(cpu === undefined ? process.execPath : "taskset", cpu === undefined ? args : ["-c", String(cpu), process.execPath, ...args], {
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", PETSTORE_ADMIN_TOKEN: TOKEN, PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true", PETSTORE_ACCESS_LOG: "false", PETSTORE_LOG_LEVEL: "warning" },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) {
        return { base, pid: child.pid, stop: () => new Promise((r) => { child.once("exit", r); child.kill("SIGTERM") }) }
      }
    } catch {}
    await new Promise((r) => setTimeout(r, 100))
  }
  child.kill("SIGKILL")
  throw new Error("server did not start")
}

const json = async (url, init = {}) => {
  const response = await fetch(url, { ...init, headers: { "content-type": "application/json", ...init.headers } })
  return response.json()
}

const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

/** One store: the light-load latencies, then the backlog. `env` selects the store; `nodeFlags` (e.g. `--cpu-prof`) go to the server's node. */
export const measure = async (store, env, { messages = 5000, light = 200, cpu, nodeFlags = [] } = {}) => {
  const hooks = await receiver()
  const server = await serve(env, cpu, nodeFlags)
  try {
    const account = await json(`${server.base}/admin/v1/accounts`, {
      method: "POST", headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ plan: "enterprise", limits: { perMinute: 1_000_000, perDay: 100_000_000 } })
    })
    if (account.id === undefined) throw new Error(`account not created: ${JSON.stringify(account)}`)
    await json(`${server.base}/admin/v1/accounts/${account.id}/webhook`, {
      method: "PUT", headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ url: hooks.url })
    })
    // The message's id and when its 202 came back (before its body is read).
    const submit = async (text) => {
      const response = await fetch(`${server.base}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${account.key}` },
        body: JSON.stringify({ message: text })
      })
      const acceptedAt = performance.now()
      const body = await response.json()
      if (response.status !== 202) throw new Error(`POST /v1/messages → ${response.status}: ${JSON.stringify(body)}`)
      return { id: body.id, acceptedAt }
    }

    // Light load: one message at a time, 202 → arrival at the receiver.
    const latencies = []
    for (let i = 0; i < light; i++) {
      const { acceptedAt, id } = await submit(`light ${i}`)
      await hooks.arrived(id)
      latencies.push(hooks.arrivals.get(id) - acceptedAt)
    }
    latencies.sort((a, b) => a - b)

    // Throughput: a backlog submitted by 50 clients at once.
    const cpu0 = Proc.cpuSeconds(server.pid)
    const started = performance.now()
    let next = 0
    const ids = []
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (next++ < messages) ids.push((await submit(`load ${next}`)).id)
    }))
    const submitted = performance.now()
    const cpuSubmitted = Proc.cpuSeconds(server.pid)
    const queuedAtSubmitted = ids.filter((id) => !hooks.arrivals.has(id)).length
    await Promise.all(ids.map(hooks.arrived))
    const finished = Math.max(...ids.map((id) => hooks.arrivals.get(id)))
    const cpuEnd = Proc.cpuSeconds(server.pid)
    const serverCpu = cpuEnd - cpu0
    const drainSeconds = (finished - submitted) / 1000
    return {
      store,
      messages,
      light,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      submitPerSecond: messages / ((submitted - started) / 1000),
      endToEndPerSecond: messages / ((finished - started) / 1000),
      queuedAtSubmitted,
      // Only meaningful when a backlog was left to drain (a tenth of the messages at least).
      drainPerSecond: queuedAtSubmitted >= messages / 10 && drainSeconds > 0 ? queuedAtSubmitted / drainSeconds : Number.NaN,
      serverCpuMicrosPerMessage: (serverCpu / messages) * 1e6,
      // While draining the server only delivers: its CPU then ÷ the messages delivered meanwhile.
      drainCpuMicrosPerMessage: queuedAtSubmitted >= messages / 10 ? ((cpuEnd - cpuSubmitted) / queuedAtSubmitted) * 1e6 : Number.NaN,
      deliveries: hooks.deliveries() - light
    }
  } finally {
    await server.stop()
    await hooks.close()
  }
}

/**
 * Both stores in turn: SQLite on a fresh file, PostgreSQL on a fresh database (created and dropped
 * here; `track` is told its name until it is dropped, so a runner can drop it on exit). A store that
 * cannot be measured gives `{ store, skipped }`.
 */
export const measureAll = async ({ messages, light, cpu, stores = ["sqlite", "postgres"], track = { add() {}, delete() {} } } = {}) => {
  const results = []
  if (stores.includes("sqlite")) {
    const folder = mkdtempSync(join(tmpdir(), "petstore-bench-hooks-"))
    try {
      results.push(await measure("sqlite", { PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: join(folder, "bench.db") }, { messages, light, cpu }))
    } catch (error) {
      results.push({ store: "sqlite", skipped: error.message })
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  }
  if (stores.includes("postgres")) {
    const name = Pg.databaseName("webhooks")
    try {
      track.add(name)
      await Pg.create(name)
    } catch (error) {
      track.delete(name)
      results.push({ store: "postgres", skipped: `PostgreSQL not reachable at ${Pg.redact(Pg.adminUrl())}: ${error.message}` })
      return results
    }
    try {
      results.push(await measure("postgres", { PETSTORE_DATABASE: Pg.databaseUrl(name) }, { messages, light, cpu }))
    } catch (error) {
      results.push({ store: "postgres", skipped: error.message })
    } finally {
      await Pg.drop(name)
      track.delete(name)
    }
  }
  return results
}

/** One line per store, as the standalone command prints them. */
export const describe = (r) =>
  r.skipped !== undefined
    ? `${r.store}: skipped (${r.skipped})`
    : `${r.store}: ${Math.round(r.endToEndPerSecond)} deliveries/s end to end (${r.messages} messages by ${CLIENTS} clients; submitting at ${Math.round(r.submitPerSecond)}/s), ` +
      `drain ${Number.isFinite(r.drainPerSecond) ? `${Math.round(r.drainPerSecond)}/s (${r.queuedAtSubmitted} still queued at the last 202)` : "– (no backlog left)"}, ` +
      `${Math.round(r.serverCpuMicrosPerMessage)} µs of server CPU per message (${Number.isFinite(r.drainCpuMicrosPerMessage) ? Math.round(r.drainCpuMicrosPerMessage) : "–"} µs per delivery while draining); 202 → delivery at light load p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const messages = Number(process.argv[2] ?? 5000)
  for (const r of await measureAll({ messages })) console.log(describe(r))
}
