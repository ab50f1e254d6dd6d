// Webhook delivery on one server instance (SQLite, then PostgreSQL when it is reachable): deliveries
// per second to a local receiver with a backlog, and the time from the 202 to the delivery at light
// load (one message at a time). Needs `pnpm build`. Usage: node bench/webhooks/deliveries.mjs [messages]
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import * as http from "node:http"
import { createRequire } from "node:module"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const require = createRequire(join(ROOT, "packages/server/package.json"))
const BIN = join(ROOT, "packages/server/dist/bin.js")
const TOKEN = "bench-admin-token-0123456789"
const total = Number(process.argv[2] ?? 5000)

const freePort = () => new Promise((resolve) => {
  const probe = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address()
    probe.close(() => resolve(port))
  })
})

const receiver = async () => {
  const arrivals = new Map()
  const waiters = new Map()
  const server = http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
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
    arrived: (id) => arrivals.has(id) ? Promise.resolve() : new Promise((r) => waiters.set(id, r)),
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r) })
  }
}

const serve = async (env) => {
  const port = await freePort()
  const child = spawn(process.execPath, [BIN, "serve"], {
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", PETSTORE_ADMIN_TOKEN: TOKEN, PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true", PETSTORE_ACCESS_LOG: "false", PETSTORE_LOG_LEVEL: "warning" },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; i < 600; i++) {
    try { if ((await fetch(`${base}/readyz`)).ok) return { base, stop: () => new Promise((r) => { child.once("exit", r); child.kill("SIGTERM") }) } } catch {}
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error("server did not start")
}

const json = async (url, init = {}) => {
  const response = await fetch(url, { ...init, headers: { "content-type": "application/json", ...init.headers } })
  return response.json()
}

const measure = async (name, env) => {
  const hooks = await receiver()
  const server = await serve(env)
  try {
    const account = await json(`${server.base}/admin/v1/accounts`, {
      method: "POST", headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ plan: "enterprise", limits: { perMinute: 1_000_000, perDay: 100_000_000 } })
    })
    await json(`${server.base}/admin/v1/accounts/${account.id}/webhook`, {
      method: "PUT", headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ url: hooks.url })
    })
    const submit = (text) => json(`${server.base}/v1/messages`, {
      method: "POST", headers: { authorization: `Bearer ${account.key}` }, body: JSON.stringify({ message: text })
    }).then((m) => m.id)

    if (account.id === undefined) throw new Error(`account not created: ${JSON.stringify(account)}`)
    // Light load: one message at a time, 202 → arrival at the receiver.
    const latencies = []
    for (let i = 0; i < 200; i++) {
      const id = await submit(`light ${i}`)
      const accepted = performance.now()
      await hooks.arrived(id)
      latencies.push(hooks.arrivals.get(id) - accepted)
    }
    latencies.sort((a, b) => a - b)
    const p = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1)

    // Throughput: a backlog submitted by 50 clients; deliveries per second from the first submission to the last arrival.
    const started = performance.now()
    let next = 0
    const ids = []
    await Promise.all(Array.from({ length: 50 }, async () => { while (next++ < total) ids.push(await submit(`load ${next}`)) }))
    const submitted = performance.now()
    await Promise.all(ids.map(hooks.arrived))
    const seconds = (performance.now() - started) / 1000
    console.log(`${name}: ${Math.round(total / seconds)} deliveries/s (${total} messages; submitting took ${((submitted - started) / 1000).toFixed(1)} s), 202 → delivery at light load p50 ${p(0.5)} ms, p99 ${p(0.99)} ms`)
  } finally {
    await server.stop()
    await hooks.close()
  }
}

const folder = mkdtempSync(join(tmpdir(), "petstore-bench-hooks-"))
try {
  await measure("sqlite", { PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: join(folder, "bench.db") })
} finally {
  rmSync(folder, { recursive: true, force: true })
}

const pg = require("pg")
const admin = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" })
const name = `bench_hooks_${process.pid}`
try {
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
} catch (error) {
  console.log(`postgres: skipped (${error.message})`)
  process.exit(0)
}
try {
  await measure("postgres", { PETSTORE_DATABASE: `postgres://postgres@127.0.0.1:5432/${name}` })
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.end()
}
