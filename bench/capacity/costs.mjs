#!/usr/bin/env node
// `pnpm bench --costs`: what one request of each operation costs, per store, measured (see
// docs/capacity.md). For each store (memory, SQLite, PostgreSQL + Redis) one server (`petstore serve`,
// as shipped) is started and seeded; then, in rounds that alternate the order of the operations, wrk
// (bench/capacity/ops.lua, 32 connections) drives one operation at a time for a few seconds while
// every counter is read before and after (bench/capacity/window.mjs). Medians of the rounds, with the
// smallest and largest, are written between the markers of docs/capacity.md, with the plan computed
// from them (bench/capacity/plan.mjs), or printed (--no-write).
//
//   node bench/capacity/costs.mjs [--rounds 3] [--duration 4] [--connections 32] [--stores memory,sqlite,postgres-redis] [--no-write] [--json FILE]
import { readFileSync, writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Proc from "../lib/proc.mjs"
import { helpAndExit, logger, option, ROOT } from "./args.mjs"
import * as Plan from "./plan.mjs"
import * as Stores from "./stores.mjs"
import * as Window from "./window.mjs"

helpAndExit(import.meta.url)

const argv = process.argv.slice(2)
const settings = {
  rounds: Number(option("rounds", 3)),
  seconds: Number(option("duration", 4)),
  connections: Number(option("connections", 32)),
  stores: option("stores", Stores.STORES.join(",")).split(","),
  write: !argv.includes("--no-write")
}
const log = logger("costs")

/** The operations: wrk's mix (one operation alone) and which account (with a webhook endpoint or not). */
export const OPERATIONS = [
  { id: "list", label: "list pets (`GET /v1/pets?limit=20`)", mix: "list:1" },
  { id: "create", label: "create pet (`POST /v1/pets`)", mix: "create:1" },
  { id: "get", label: "get pet (`GET /v1/pets/{id}`)", mix: "get:1" },
  { id: "message", label: "message submit (`POST /v1/messages`, no endpoint: processed in place)", mix: "message:1" },
  { id: "usage", label: "usage read (`GET /v1/usage`, 24 hourly buckets)", mix: "usage:1" },
  { id: "webhook", label: "message submit + webhook delivery (endpoint set; counted until every delivery arrived)", mix: "message:1", webhook: true }
]

const cleanups = []
// Interrupted: stop the servers and remove their database, keys and files first.
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => Promise.allSettled(cleanups.map((stop) => stop())).finally(() => process.exit(130)))

/** All the windows of one store: `rounds` × each operation, the order reversed every other round. */
const measureStore = async (store) => {
  log(`starting ${store}`)
  const server = await Stores.start(store, { root: ROOT, log })
  cleanups.push(server.stop)
  const hooks = await Stores.receiver()
  const obs = await Window.observers({ redis: store === "postgres-redis" })
  const windows = []
  try {
    const keys = { plain: await Stores.account(server), webhook: await Stores.account(server, { webhook: hooks.url }) }
    const run = async (op, seconds) => {
      const delivered0 = hooks.deliveries()
      return Window.measure(obs, {
        urls: server.urls,
        mix: op.mix,
        key: op.webhook ? keys.webhook : keys.plain,
        connections: settings.connections,
        seconds,
        pids: server.pids,
        database: server.database,
        // A window ends once its messages were processed (and, with an endpoint, delivered).
        settle: async (accepted) => {
          if (op.webhook) await hooks.settled(delivered0 + accepted)
          return Stores.drained(server)
        }
      })
    }
    for (const op of OPERATIONS) await run(op, 1) // warm-up
    for (let round = 0; round < settings.rounds; round++) {
      for (const op of round % 2 === 0 ? OPERATIONS : [...OPERATIONS].reverse()) {
        const m = await run(op, settings.seconds)
        windows.push({ store, op: op.id, round, ...m })
        log(
          `${store} ${op.id.padEnd(8)} round ${round + 1}: ${m.rps.toFixed(0)} req/s, server ${m.serverMicros.toFixed(0)} µs` +
            (m.pgMicros === undefined ? "" : `, PG ${m.pgMicros.toFixed(0)}+${m.pgAuxMicros.toFixed(0)} µs, ${m.pgXacts.toFixed(3)} stmts, WAL ${m.walBytes.toFixed(0)} B`) +
            (m.redisCommands === undefined ? "" : `, Redis ${m.redisRoundTrips.toFixed(3)} trips ${m.redisCommands.toFixed(2)} cmds ${m.redisMicros.toFixed(0)} µs`) +
            `, ${m.bytesPerRequest.toFixed(0)} B, wrk ${m.loaderMicros.toFixed(0)} µs, other ${m.otherMicros.toFixed(0)} µs` +
            (m.failed > 0 ? `, FAILED ${m.failed}` : "") +
            (m.pgOtherXacts > 0 || m.redisOtherConnections > 0 ? ` (others meanwhile: ${m.pgOtherXacts ?? 0} PG xacts, ${m.redisOtherConnections ?? 0} Redis connections)` : "")
        )
      }
    }
  } finally {
    await obs.close()
    await hooks.close()
    await server.stop()
    cleanups.splice(cleanups.indexOf(server.stop), 1)
  }
  return windows
}

const FIELDS = ["rps", "serverMicros", "pgXacts", "pgMicros", "pgAuxMicros", "walBytes", "redisCommands", "redisRoundTrips", "redisMicros", "bytesPerRequest", "requestBytes", "responseBytes", "loaderMicros", "otherMicros", "p50", "p99"]

/** Per store and operation: each field's median over the rounds, smallest and largest. */
export const summarize = (windows) => {
  const out = {}
  for (const w of windows) (out[`${w.store}/${w.op}`] ??= { store: w.store, op: w.op, runs: [] }).runs.push(w)
  for (const s of Object.values(out)) {
    for (const f of FIELDS) {
      const xs = s.runs.map((r) => r[f]).filter((x) => Number.isFinite(x))
      s[f] = xs.length === 0 ? undefined : { median: Window.median(xs), min: Math.min(...xs), max: Math.max(...xs) }
    }
    s.failed = s.runs.reduce((a, r) => a + r.failed, 0)
    s.polluted = s.runs.filter((r) => r.pgOtherXacts > 0 || r.redisOtherConnections > 0).length
  }
  // Webhook delivery alone: (submit + delivery) − (submit, processed in place), per message.
  for (const store of new Set(windows.map((w) => w.store))) {
    const withHook = out[`${store}/webhook`]
    const without = out[`${store}/message`]
    if (withHook === undefined || without === undefined) continue
    const d = {}
    for (const f of ["serverMicros", "pgXacts", "pgMicros", "pgAuxMicros", "walBytes", "redisCommands", "redisRoundTrips", "redisMicros"]) {
      // A difference of medians below zero is the rounds' spread, not a saving: shown as 0.
      if (withHook[f] !== undefined && without[f] !== undefined) d[f] = { median: Math.max(0, withHook[f].median - without[f].median) }
    }
    out[`${store}/delivery`] = { store, op: "delivery", derived: true, ...d }
  }
  return out
}

const fmt = (x, digits = 0) => (x === undefined || !Number.isFinite(x.median) ? "–" : x.median.toFixed(digits))
const spread = (x, digits = 0) => (x === undefined || x.min === undefined ? "" : ` (${x.min.toFixed(digits)}–${x.max.toFixed(digits)})`)
const STORE_LABEL = { memory: "memory", sqlite: "SQLite", "postgres-redis": "PostgreSQL + Redis" }
const OP_LABEL = { ...Object.fromEntries(OPERATIONS.map((o) => [o.id, o.label])), delivery: "webhook delivery alone (the row above minus message submit)" }

/** The costs table (markdown). */
export const table = (summary, { machine }) => {
  const order = [...OPERATIONS.map((o) => o.id), "delivery"]
  const rows = Object.values(summary).sort((a, b) => Stores.STORES.indexOf(a.store) - Stores.STORES.indexOf(b.store) || order.indexOf(a.op) - order.indexOf(b.op))
  const lines = [
    `Measured ${machine.date} on ${machine.nproc} cores (${machine.model}), load average ${machine.loadBefore.join(" ")} before, ${machine.loadAfter.join(" ")} after; ` +
      `${settings.rounds} rounds × ${settings.seconds} s per operation and store, wrk with ${settings.connections} connections; median (smallest–largest) of the rounds. ` +
      "Command: `" + machine.command + "`.",
    "",
    "| store | operation | req/s at 32 conns | server CPU µs/req | PG statements/req | PG backend CPU µs/req | PG background CPU µs/req | WAL bytes/req | Redis round trips/req (commands run) | Redis CPU µs/req | bytes on the wire/req (req + resp) | wrk CPU µs/req |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  ]
  for (const r of rows) {
    lines.push(
      `| ${STORE_LABEL[r.store]} | ${OP_LABEL[r.op]}${r.failed > 0 ? ` (**${r.failed} failed**)` : ""}${r.polluted > 0 ? ` (${r.polluted} run(s) with other clients on PG/Redis)` : ""} | ${r.derived ? "" : fmt(r.rps)} | ` +
        `${fmt(r.serverMicros)}${spread(r.serverMicros)} | ${fmt(r.pgXacts, 3)} | ${fmt(r.pgMicros)}${spread(r.pgMicros)} | ${fmt(r.pgAuxMicros)} | ${fmt(r.walBytes)}${spread(r.walBytes)} | ` +
        `${fmt(r.redisRoundTrips, 2)}${r.redisCommands === undefined ? "" : ` (${fmt(r.redisCommands, 1)})`} | ${fmt(r.redisMicros)} | ${r.derived ? "–" : `${fmt(r.bytesPerRequest)} (${fmt(r.requestBytes)} + ${fmt(r.responseBytes)})`} | ${fmt(r.loaderMicros)} |`
    )
  }
  return lines.join("\n")
}

/** Replaces the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in docs/capacity.md. */
export const writeSection = (name, text) => {
  const file = join(ROOT, "docs/capacity.md")
  const doc = readFileSync(file, "utf8")
  const begin = `<!-- ${name}:begin -->`
  const end = `<!-- ${name}:end -->`
  if (!doc.includes(begin) || !doc.includes(end)) throw new Error(`docs/capacity.md has no ${begin} … ${end} section`)
  writeFileSync(file, `${doc.slice(0, doc.indexOf(begin) + begin.length)}\n${text}\n${doc.slice(doc.indexOf(end))}`)
}

export const machineNow = () => ({
  date: new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC",
  nproc: cpus().length,
  model: /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown",
  loadBefore: Proc.loadAverage()
})

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const machine = { ...machineNow(), command: `pnpm bench --costs${argv.filter((a) => a !== "--no-write").length > 0 ? ` ${argv.filter((a) => a !== "--no-write").join(" ")}` : ""}` }
  log(`load average ${machine.loadBefore.join(" ")}`)
  const windows = []
  try {
    for (const store of settings.stores) windows.push(...(await measureStore(store)))
  } finally {
    for (const stop of cleanups) await stop().catch(() => {})
  }
  machine.loadAfter = Proc.loadAverage()
  const summary = summarize(windows)
  const text = table(summary, { machine })
  const json = option("json", undefined)
  if (json !== undefined) writeFileSync(json, JSON.stringify({ machine, settings, windows, summary }, null, 2))
  if (settings.write) {
    writeSection("costs", text)
    if (settings.stores.includes("postgres-redis")) writeSection("plan", Plan.table(summary))
    log("wrote the costs table and the plan into docs/capacity.md")
  } else process.stdout.write(`${text}\n\n${Plan.table(summary)}\n`)
}
