#!/usr/bin/env node
// What an `Idempotency-Key` costs the shipped server on its durable SQLite store, whole process:
// the server (pinned to CPU 0) and wrk (CPU 1) as `pnpm bench` runs them, alternating rounds of the
// plain POST and the keyed one (a new key each) on one server, and per request: CPU (user + system),
// bytes the server wrote towards the disk (`/proc/<pid>/io` write_bytes: the WAL's frames and the
// checkpoint's pages together), write and read system calls (sockets, pipes and files alike), and
// the group commit's average batch (from `/metrics`).
//
//   node bench/compare/keyed-server.mjs [--rounds 4] [--duration 6] [--server packages/server/bin/petstore.cjs]
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { POST_BODY } from "../fixture.mjs"
import * as Loader from "../lib/loader.mjs"
import * as Proc from "../lib/proc.mjs"
import { median } from "../lib/stats.mjs"
import * as Targets from "../lib/targets.mjs"
import { option } from "../lib/options.mjs"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const ROUNDS = Number(option("rounds", 4))
const SECONDS = Number(option("duration", 6))
if (!(Number.isInteger(ROUNDS) && ROUNDS >= 1 && SECONDS > 0)) throw new Error("--rounds takes a whole number from 1, --duration a number of seconds above 0")
const server = resolve(option("server", Targets.shipped(ROOT)))

/** The counters of `/proc/<pid>/io`. */
const io = (pid) =>
  Object.fromEntries(readFileSync(`/proc/${pid}/io`, "utf8").trim().split("\n").map((l) => {
    const [k, v] = l.split(": ")
    return [k, Number(v)]
  }))

const cwd = mkdtempSync(join(tmpdir(), "petstore-keyed-server-"))
const target = {
  id: "durable",
  label: "ours, durable SQLite store",
  role: "ours",
  argv: [server, "serve"],
  env: { PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: join(cwd, "petstore.db") },
  cwd,
  kind: "app",
  scenarios: ["post", "post-keyed"]
}
const rows = { plain: [], keyed: [] }
let running
try {
  running = await Targets.start(target, { cpu: 0, root: ROOT })
  await Targets.seed(running)
  const key = await Targets.newKey(running)
  const load = (keyed, seconds) =>
    Loader.run({
      loader: Loader.choose("auto"),
      url: `http://127.0.0.1:${running.port}/v1/pets`,
      method: "POST",
      body: POST_BODY,
      headers: { authorization: `Bearer ${key}` },
      keyed,
      connections: 50,
      seconds,
      cpu: 1
    })
  // Warm-up: both paths compiled before the first counted round.
  await load(false, 3)
  await load(true, 3)
  for (let round = 0; round < ROUNDS; round++) {
    for (const keyed of round % 2 === 0 ? [false, true] : [true, false]) {
      const cpu0 = Proc.cpuSeconds(running.pid)
      const io0 = io(running.pid)
      const b0 = await Targets.commitBatches(running.port)
      const r = await load(keyed, SECONDS)
      const cpu = Proc.cpuSeconds(running.pid) - cpu0
      const io1 = io(running.pid)
      const b1 = await Targets.commitBatches(running.port)
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`a ${keyed ? "keyed" : "plain"} round had ${r.non2xx} answers not 2xx and ${r.errors} errors`)
      if (r.requests === 0 || b1.count === b0.count) throw new Error(`a ${keyed ? "keyed" : "plain"} round completed no request or no commit`)
      const n = r.requests
      const row = {
        rps: n / r.seconds,
        cpu: (cpu / n) * 1e6,
        bytes: (io1.write_bytes - io0.write_bytes) / n,
        calls: (io1.syscw - io0.syscw) / n,
        reads: (io1.syscr - io0.syscr) / n,
        batch: (b1.sum - b0.sum) / (b1.count - b0.count)
      }
      rows[keyed ? "keyed" : "plain"].push(row)
      console.log(`round ${round + 1} ${keyed ? "keyed" : "plain"}: ${row.rps.toFixed(0)} req/s, ${row.cpu.toFixed(1)} µs CPU, ${row.bytes.toFixed(0)} B written, ${row.calls.toFixed(2)} write and ${row.reads.toFixed(2)} read syscalls, ${row.batch.toFixed(1)} writes per commit`)
    }
  }
} finally {
  if (running !== undefined) await Targets.stop(running, { signal: "SIGINT" })
  rmSync(cwd, { recursive: true, force: true })
}
const ratios = rows.keyed.map((k, i) => k.rps / rows.plain[i].rps)
console.log(`\nper request, medians of ${ROUNDS} rounds | plain | keyed | keyed − plain`)
for (const [name, field, digits] of [["req/s", "rps", 0], ["CPU µs", "cpu", 1], ["bytes written", "bytes", 0], ["write syscalls", "calls", 2], ["read syscalls", "reads", 2], ["writes per commit", "batch", 1]]) {
  const p = median(rows.plain.map((r) => r[field]))
  const k = median(rows.keyed.map((r) => r[field]))
  console.log(`${name.padEnd(17)} | ${p.toFixed(digits)} | ${k.toFixed(digits)} | ${(k - p).toFixed(digits)}`)
}
console.log(`keyed ÷ plain req/s (median of the rounds' ratios): ${median(ratios).toFixed(2)}`)
