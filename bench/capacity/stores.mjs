// The servers the capacity runs measure: our `petstore serve` (as shipped) on each store, N instances
// on PostgreSQL + Redis, with accounts made through the admin API, one of them with a webhook endpoint
// that is a node:http receiver in this process (204 at once, keep-alive).
import { mkdtempSync, rmSync } from "node:fs"
import http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BENCH_LIMITS } from "../fixture.mjs"
import * as Pg from "../lib/pg.mjs"
import * as Redis from "../lib/redis.mjs"
import * as Targets from "../lib/targets.mjs"

export const STORES = ["memory", "sqlite", "postgres-redis"]

/** Starts `instances` servers on `store`; `stop()` ends them and removes their database, keys and files. */
export const start = async (store, { root, instances = 1, cpu, log = () => {} }) => {
  const cwd = mkdtempSync(join(tmpdir(), `petstore-capacity-${store}-`))
  const suffix = `capacity_${store.replaceAll("-", "_")}_${instances}`
  const database = store === "postgres-redis" ? Pg.databaseName(suffix) : undefined
  const redisPrefix = store === "postgres-redis" ? Redis.prefixFor(suffix) : undefined
  const env = {
    memory: { PETSTORE_STORE: "memory" },
    sqlite: { PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: join(cwd, "petstore.db") },
    "postgres-redis": {
      PETSTORE_STORE: "sqlite",
      PETSTORE_DATABASE: database === undefined ? "" : Pg.databaseUrl(database),
      PETSTORE_DATABASE_POOL_SIZE: "10",
      PETSTORE_REDIS_URL: Redis.url(),
      PETSTORE_REDIS_PREFIX: redisPrefix ?? ""
    }
  }[store]
  if (database !== undefined) await Pg.create(database)
  const cleanup = async () => {
    if (database !== undefined) await Pg.drop(database).catch((e) => log(`could not drop ${database}: ${e.message}`))
    if (redisPrefix !== undefined) await Redis.clean(redisPrefix).catch((e) => log(`could not clean ${redisPrefix}: ${e.message}`))
    rmSync(cwd, { recursive: true, force: true })
  }
  let running
  try {
    running = await Targets.start({
      id: `capacity-${store}`,
      label: store,
      argv: [Targets.shipped(root), "serve"],
      env: { ...env, PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true" },
      cwd,
      kind: "app",
      scenarios: ["get"],
      ...(instances > 1 ? { instances } : {})
    }, { cpu, root })
    await Targets.seed(running)
  } catch (e) {
    if (running !== undefined) await Targets.stop(running, { signal: "SIGKILL" })
    await cleanup()
    throw e
  }
  return {
    store,
    database,
    redisPrefix,
    running,
    pids: running.pids,
    urls: running.ports.map((port) => `http://127.0.0.1:${port}`),
    stop: async () => {
      await Targets.stop(running)
      await cleanup()
    },
    // Names the runner's exit handler must clean if it is interrupted.
    leftovers: { database, redisPrefix, cwd }
  }
}

const admin = async (server, method, path, body) => {
  const res = await Targets.request(server.running.port, method, path, {
    headers: { authorization: `Bearer ${Targets.ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.body}`)
  return JSON.parse(res.body)
}

/** A new account's key (the bench's roomy limits); with `webhook`, its endpoint set to that URL. */
export const account = async (server, { webhook } = {}) => {
  const made = await admin(server, "POST", "/admin/v1/accounts", { plan: "enterprise", limits: BENCH_LIMITS })
  if (webhook !== undefined) await admin(server, "PUT", `/admin/v1/accounts/${made.id}/webhook`, { url: webhook })
  return made.key
}

/**
 * Waits until `server` has no message left to process, so that a window counts the work its messages
 * cause after their 202 and leaves none to the next: on PostgreSQL the shared outbox read directly,
 * otherwise each instance's `petstore_message_queue_depth` (GET /metrics, every 100 ms). Resolves with
 * the database transactions its own polls made (none without a database).
 */
export const drained = async (server, timeoutMs = 120_000) => {
  if (server.database !== undefined) return Pg.drained(server.database, { timeoutMs })
  const deadline = Date.now() + timeoutMs
  for (const port of server.running.ports) {
    while (true) {
      const res = await Targets.request(port, "GET", "/metrics", { headers: { authorization: `Bearer ${Targets.ADMIN_TOKEN}` } })
      const samples = [...res.body.matchAll(/^petstore_message_queue_depth\{state="(queued|processing)"\} (\d+)/gm)]
      // Metrics off, or a store that cannot say: no depth is not an empty queue.
      if (res.status !== 200 || samples.length !== 2) throw new Error(`no message queue depth from instance on port ${port} (${res.status})`)
      const depth = samples.reduce((a, m) => a + Number(m[2]), 0)
      if (depth === 0) break
      if (Date.now() > deadline) throw new Error(`${depth} messages still pending after ${timeoutMs} ms`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return { transactions: 0 }
}

/** A webhook receiver: counts deliveries; `settled(n)` waits until n arrived and no more come for 300 ms. */
export const receiver = async () => {
  let deliveries = 0
  const server = http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      deliveries++
      res.writeHead(204).end()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    deliveries: () => deliveries,
    settled: async (atLeast, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs
      let last = -1
      while (Date.now() < deadline) {
        if (deliveries >= atLeast && deliveries === last) return deliveries
        last = deliveries
        await new Promise((r) => setTimeout(r, 300))
      }
      throw new Error(`webhooks: ${deliveries} of at least ${atLeast} arrived within ${timeoutMs} ms`)
    },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r) })
  }
}
