#!/usr/bin/env node
// Where the time goes on the durable path: one `petstore serve` on PostgreSQL + Redis (as `pnpm
// bench`'s `postgres-redis` target runs it) under POST load, plain and keyed, with a PostgreSQL of its
// own started for the run (the Debian binaries, a free loopback port, fsync and synchronous_commit on
// as the machine's server has them) that loads `pg_stat_statements`, so that every statement the
// server sends is counted with its execution time. Per request, for each scenario:
//   - the server's CPU (`/proc`) and, with --cpu-prof, where it goes by package (bench/profile.mjs);
//   - PostgreSQL: statements (round trips: the driver sends each as one), transactions, the
//     backends' CPU (`/proc`), WAL bytes; and each statement's calls and execution time;
//   - the group commit's batch sizes (`petstore_group_commit_batch_size` from `/metrics`).
//
//   node bench/compare/durable-path.mjs [--seconds 10] [--connections 50] [--scenarios post,post-keyed]
//        [--server packages/server/bin/petstore.cjs] [--cpu-prof]
// --cpu-prof runs the unbundled server (`dist/bin.js`: the same code with readable names) under
// `--cpu-prof`; its profile covers the whole process (start-up, warm-ups and every scenario).
// Needs PostgreSQL 15's binaries (/usr/lib/postgresql/15/bin, or PETSTORE_TEST_PG_BIN), Redis at
// BENCH_REDIS_URL (default redis://127.0.0.1:6379) and wrk; run as root, PostgreSQL runs as `postgres`.
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { POST_BODY } from "../fixture.mjs"
import * as Loader from "../lib/loader.mjs"
import * as Pg from "../lib/pg.mjs"
import * as Proc from "../lib/proc.mjs"
import * as Redis from "../lib/redis.mjs"
import * as Targets from "../lib/targets.mjs"
import { analyse } from "../profile.mjs"
import { option } from "../lib/options.mjs"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const argv = process.argv.slice(2)
const SECONDS = Number(option("seconds", "10"))
const CONNECTIONS = Number(option("connections", "50"))
const SCENARIOS = option("scenarios", "post,post-keyed").split(",")
for (const scenario of SCENARIOS) if (scenario !== "post" && scenario !== "post-keyed") throw new Error(`--scenarios: post or post-keyed, not ${scenario}`)
const CPU_PROF = argv.includes("--cpu-prof")
const SERVER = resolve(option("server", CPU_PROF ? join(ROOT, "packages/server/dist/bin.js") : Targets.shipped(ROOT)))
const BIN = process.env.PETSTORE_TEST_PG_BIN ?? "/usr/lib/postgresql/15/bin"
const asRoot = process.getuid?.() === 0

// --- a PostgreSQL of the run's own, with pg_stat_statements ------------------------------------------
const pgTool = (tool, args) => {
  const [command, all] = asRoot ? ["runuser", ["-u", "postgres", "--", join(BIN, tool), ...args]] : [join(BIN, tool), args]
  const r = spawnSync(command, all, { encoding: "utf8", timeout: 120_000 })
  if (r.status !== 0) throw new Error(`${tool} failed:\n${r.stdout}\n${r.stderr}`)
}
const dir = mkdtempSync(join(tmpdir(), "petstore-durable-path-"))
if (asRoot) execFileSync("chown", ["postgres:postgres", dir])
const pgPort = await Targets.freePort()
const data = join(dir, "data")
const stopPg = () => {
  try {
    pgTool("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
  } catch {
    // not started
  }
  rmSync(dir, { recursive: true, force: true })
}
// Whatever ends the run (an error, a signal), nothing is left behind: the server, its Redis keys, PostgreSQL.
let running
const prefix = Redis.prefixFor("durable_path")
const cleanUp = () => {
  if (running !== undefined && running.exited() === null) running.child.kill("SIGKILL")
  Redis.cleanSync([prefix])
  stopPg()
}
process.on("exit", cleanUp)
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(1))
pgTool("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync"])
pgTool("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-t", "60", "-o",
  `-p ${pgPort} -k ${dir} -c listen_addresses=127.0.0.1 -c shared_preload_libraries=pg_stat_statements ` +
  "-c pg_stat_statements.track=all -c pg_stat_statements.max=1000 -c max_connections=100 -c shared_buffers=128MB", "start"])
const url = (db) => `postgres://postgres@127.0.0.1:${pgPort}/${db}`
// The bench's PostgreSQL helpers (the backends' CPU) read this server's maintenance database.
process.env.BENCH_POSTGRES_URL = url("postgres")
const query = async (db, text, values) => {
  const c = new pg.Client({ connectionString: url(db) })
  await c.connect()
  try {
    return (await c.query(text, values)).rows
  } finally {
    await c.end()
  }
}
await query("postgres", "CREATE DATABASE petstore")
await query("petstore", "CREATE EXTENSION pg_stat_statements")

// --- the server -------------------------------------------------------------------------------------------
const profDir = join(dir, "prof")
running = await Targets.start({
  id: "durable-path",
  label: "ours, 1 instance, PostgreSQL + Redis",
  argv: [SERVER, "serve"],
  env: {
    PETSTORE_DATABASE: url("petstore"),
    PETSTORE_DATABASE_POOL_SIZE: "10",
    PETSTORE_REDIS_URL: Redis.url(),
    PETSTORE_REDIS_PREFIX: prefix
  },
  cwd: dir,
  kind: "app",
  scenarios: ["get"]
}, { cpu: 0, root: ROOT, nodeArgs: CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", profDir] : [] })
const key = await Targets.newKey(running)

const batches = () => Targets.commitBatches(running.port)
const database = async () =>
  (await query("postgres", "SELECT xact_commit::float8 AS commits, pg_current_wal_lsn() - '0/0'::pg_lsn AS wal FROM pg_stat_database WHERE datname = 'petstore'"))[0]

const load = (scenario, seconds) =>
  Loader.run({
    loader: "wrk",
    url: `http://127.0.0.1:${running.port}/v1/pets`,
    method: "POST",
    body: POST_BODY,
    keyed: scenario === "post-keyed",
    headers: { authorization: `Bearer ${key}` },
    connections: CONNECTIONS,
    seconds,
    cpu: 1
  })

const f = (x, d = 1) => (Number.isFinite(x) ? x.toLocaleString("en", { minimumFractionDigits: d, maximumFractionDigits: d }) : "–")
const line = (s = "") => console.log(s)
line(`# durable path: one instance on PostgreSQL + Redis, ${CONNECTIONS} connections, ${SECONDS} s per scenario, Node ${process.version}`)
for (const scenario of SCENARIOS) {
  await load(scenario, 5) // warm-up: the JIT, the pool's connections, the prepared statements
  await query("petstore", "SELECT pg_stat_statements_reset()")
  const [b0, pg0, db0, cpu0] = [await batches(), await Pg.backendCpu("petstore"), await database(), Proc.cpuSeconds(running.pid)]
  const r = await load(scenario, SECONDS)
  const cpu = Proc.cpuSeconds(running.pid) - cpu0
  const [b1, pg1, db1] = [await batches(), await Pg.backendCpu("petstore"), await database()]
  const statements = await query(
    "petstore",
    `SELECT query, toplevel, calls::float8, total_exec_time, rows::float8 FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'petstore') AND query NOT LIKE '%pg_stat_statements%'
     ORDER BY total_exec_time DESC`
  )
  const n = r.requests
  const backendCpu = Pg.backendCpuDelta(pg0, pg1)
  // Round trips are the statements the server sent (top level); those run inside a function are listed too.
  const top = statements.filter((s) => s.toplevel)
  const calls = top.reduce((a, s) => a + s.calls, 0)
  const execMs = top.reduce((a, s) => a + s.total_exec_time, 0)
  const batchCount = b1.count - b0.count
  const writes = b1.sum - b0.sum
  line()
  line(`## ${scenario}: ${f(n / r.seconds, 0)} req/s, p99 ${f(r.p99, 2)} ms, ${r.errors ?? 0} errors`)
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${scenario}: ${r.non2xx} answers were not 2xx and ${r.errors} requests failed: the figures would not be those of creates`)
  line()
  line("| per request | |")
  line("|---|--:|")
  line(`| server CPU µs | ${f((cpu / n) * 1e6)} |`)
  line(`| PostgreSQL backends' CPU µs | ${f((backendCpu / n) * 1e6)} |`)
  line(`| statements' execution time µs (pg_stat_statements, wall time) | ${f((execMs / n) * 1e3)} |`)
  line(`| statements sent (round trips) | ${f(calls / n, 3)} |`)
  line(`| transactions committed | ${f((db1.commits - db0.commits) / n, 3)} |`)
  line(`| WAL bytes | ${f((Number(db1.wal) - Number(db0.wal)) / n, 0)} |`)
  line(`| group-commit batches: writes per batch (mean) | ${f(batchCount > 0 ? writes / batchCount : Number.NaN)} |`)
  const cumulative = [...b1.buckets].map(([le, c]) => [le, c - (b0.buckets.get(le) ?? 0)])
  line(`| batch sizes (share of batches at most) | ${cumulative.filter(([, c]) => c > 0).map(([le, c]) => `≤${le}: ${f((c / batchCount) * 100, 0)} %`).join(", ")} |`)
  line()
  line("| statement (nested: run inside a function the server called) | calls per 1,000 requests | rows per call | µs per call | µs per request |")
  line("|---|--:|--:|--:|--:|")
  for (const s of statements.slice(0, 12)) {
    const text = s.query.replace(/\s+/g, " ").slice(0, 110).replaceAll("|", "\\|")
    line(`| ${s.toplevel ? "" : "(nested) "}\`${text}\` | ${f((s.calls / n) * 1000, 1)} | ${f(s.rows / s.calls, 1)} | ${f((s.total_exec_time / s.calls) * 1e3)} | ${f((s.total_exec_time / n) * 1e3, 2)} |`)
  }
}

await Targets.stop(running)
await Redis.clean(prefix)
if (CPU_PROF) {
  const file = existsSync(profDir) ? readdirSync(profDir).find((name) => name.endsWith(".cpuprofile")) : undefined
  if (file === undefined) console.error("no CPU profile was written (the server did not exit cleanly?)")
  else console.log(analyse(join(profDir, file), { top: 25 }))
}
