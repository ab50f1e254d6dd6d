// Instructions per request of the whole server (`bin.js serve`: HTTP, the application and its
// store, SQLite included), counted by callgrind, so the figure is the same however busy the machine
// is. The server runs under `valgrind --tool=callgrind --instr-atstart=no`; after `--warmup`
// requests the count is switched on (`callgrind_control -i on`), `--count` requests are sent, then it
// is switched off: the total divided by the count is the instructions per request. The requests are
// sent by this process (not counted), `--concurrency` at a time over keep-alive connections, so
// writes are committed in groups as under the bench's load.
//
//   node bench/compare/serve-instructions.mjs --scenario post-keyed [--store sqlite|postgres|memory] [--root DIR]
//     [--count 3000] [--warmup 3000] [--concurrency 50] [--usage on|off]
//
// Scenarios: `get` (GET /v1/pets?limit=20, after 100 pets are created), `post` (POST /v1/pets) and
// `post-keyed` (the same with a new Idempotency-Key each), as in `pnpm bench`. `--usage off` runs the
// server with PETSTORE_USAGE=off: on against off, alternating, is what counting usage costs the
// whole server per request (the flusher's work included). `--store postgres` uses a fresh database (dropped at the end) at
// BENCH_POSTGRES_URL; PostgreSQL's own CPU is not counted, only the server's. `--root DIR` measures
// another built checkout, so two versions can be compared (A/B) on one machine.
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as Http from "node:http"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { PAGE_LIMIT, POST_BODY } from "../fixture.mjs"
import * as Pg from "../lib/pg.mjs"
import { ADMIN_TOKEN } from "../lib/targets.mjs"
import { option } from "../lib/options.mjs"

const root = resolve(option("root", join(dirname(fileURLToPath(import.meta.url)), "../..")))
const scenario = option("scenario", "post-keyed")
const store = option("store", "sqlite")
const count = Number(option("count", 3_000))
const warmup = Number(option("warmup", 3_000))
const concurrency = Number(option("concurrency", 50))
const usage = option("usage", "on")
if (!["get", "post", "post-keyed"].includes(scenario)) throw new Error(`--scenario get|post|post-keyed, not ${scenario}`)
if (!["sqlite", "postgres", "memory"].includes(store)) throw new Error(`--store sqlite|postgres|memory, not ${store}`)
if (!["on", "off"].includes(usage)) throw new Error(`--usage on|off, not ${usage}`)

const dir = mkdtempSync(join(tmpdir(), "petstore-instructions-"))
const database = store === "postgres" ? Pg.databaseName("instructions") : undefined
if (database !== undefined) await Pg.create(database)
const port = await new Promise((resolve, reject) => {
  const probe = Http.createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address()
    probe.close(() => resolve(port))
  })
  probe.on("error", reject)
})
const out = join(dir, "callgrind.out")
const child = spawn("valgrind", [
  "--tool=callgrind", "--instr-atstart=no", "--cache-sim=no", "--smc-check=all-non-file", `--callgrind-out-file=${out}`,
  process.execPath, "--single-threaded", join(root, "packages/server/dist/bin.js"), "serve"
], {
  cwd: dir,
  stdio: ["ignore", "ignore", "pipe"],
  env: {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
    PETSTORE_USAGE: usage,
    ...(store === "memory"
      ? { PETSTORE_STORE: "memory" }
      : {
        PETSTORE_STORE: "sqlite",
        PETSTORE_DATABASE: database === undefined ? join(dir, "petstore.db") : Pg.databaseUrl(database),
        PETSTORE_DATABASE_POOL_SIZE: "10"
      })
  }
})
let log = ""
child.stderr.on("data", (d) => (log = (log + d).slice(-4_000)))
const exited = new Promise((r) => child.on("exit", r))

const agent = new Http.Agent({ keepAlive: true, maxSockets: concurrency })
// A kept-alive socket the server closed while idle (its keep-alive timeout passes while callgrind_control
// runs) is reset when used again: the request is sent again on a new one, as Node's documentation advises.
const send = (method, path, headers, body) =>
  new Promise((resolve, reject) => {
    const req = Http.request({ host: "127.0.0.1", port, method, path, headers, agent }, (res) => {
      const chunks = []
      res.on("data", (c) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }))
    })
    req.on("error", (e) => (req.reusedSocket && e.code === "ECONNRESET" ? send(method, path, headers, body).then(resolve, reject) : reject(e)))
    req.end(body)
  })

// valgrind names its control pipes after $HOST, which the server is given: callgrind_control must see the same.
const callgrind = (...args) => execFileSync("callgrind_control", [...args, String(child.pid)], { stdio: "ignore", env: { ...process.env, HOST: "127.0.0.1" } })
try {
  for (let i = 0; ; i++) {
    try {
      await send("GET", "/healthz", {})
      break
    } catch {
      if (i > 3_000 || child.exitCode !== null) throw new Error(`the server did not start:\n${log}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  const account = await send("POST", "/admin/v1/accounts", { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, JSON.stringify({ plan: "enterprise", limits: { perMinute: 1_000_000, perDay: 1_000_000_000 } }))
  if (account.status !== 201) throw new Error(`POST /admin/v1/accounts → ${account.status} ${account.body}`)
  const key = JSON.parse(account.body).key
  const prefix = `instructions-${process.pid}-${Date.now()}-`
  let sent = 0
  const statuses = {}
  const one = async () => {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
    if (scenario === "post-keyed") headers["idempotency-key"] = `${prefix}${sent}`
    sent++
    const { status } = scenario === "get"
      ? await send("GET", `/v1/pets?limit=${PAGE_LIMIT}`, headers)
      : await send("POST", "/v1/pets", headers, POST_BODY)
    statuses[status] = (statuses[status] ?? 0) + 1
  }
  const drive = async (n) => {
    let left = n
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (left > 0) {
        left--
        await one()
      }
    }))
  }
  if (scenario === "get") {
    for (let i = 0; i < 100; i++) {
      const { status } = await send("POST", "/v1/pets", { authorization: `Bearer ${key}`, "content-type": "application/json" }, POST_BODY)
      if (status !== 201) throw new Error(`POST /v1/pets → ${status}`)
    }
  }
  await drive(warmup)
  callgrind("-i", "on")
  await drive(count)
  callgrind("-d")
  callgrind("-i", "off")
  child.kill("SIGTERM")
  await exited
  const text = readFileSync(`${out}.1`, "utf8")
  const totals = /^(?:summary|totals):\s+(\d+)/m.exec(text)
  console.log(JSON.stringify({ root, store, scenario, usage, count, concurrency, statuses, instructionsPerRequest: Math.round(Number(totals[1]) / count) }))
} finally {
  agent.destroy()
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL")
    await exited
  }
  if (database !== undefined) await Pg.drop(database)
  if (process.env.KEEP_CALLGRIND) console.error(`kept ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
}
