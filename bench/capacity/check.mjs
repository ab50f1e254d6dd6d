#!/usr/bin/env node
// `pnpm bench --capacity-check`: the capacity model of docs/capacity.md checked on this machine.
// 1. Costs: on each set (1, 2 and 3 instances on PostgreSQL + Redis), each operation of the mix alone
//    (wrk, as `--costs`), every process's CPU per request: the server's, PostgreSQL's (the database's
//    backends and the server-wide background processes), Redis's, the load generator's and this
//    runner's. Each operation is sent on as many connections as send it in the mix (its share of
//    `--connections`; `--op-connections all`: all of them), so that its writes batch as they do there;
//    what the set spends with no request (measured first, step 0) is taken off each window's costs.
// 2. Model: a request of the mix costs C = Σ share × (all of the above) µs of CPU and S = Σ share ×
//    server µs on an instance's event loop (one core at most). On the cores left to them (the
//    machine's, less the CPU every other process took during the window: busy time no process of
//    ours is charged with, read from /proc/stat), N instances serve min(cores × 10⁶ / C, N × 10⁶ / S)
//    requests per second, less the CPU each set spends with no request at all (measured idle first).
//    Also given: the prediction from one instance's costs for every set (costs taken as independent
//    of the number of instances).
// 3. Measured: the mix against 1, 2 and 3 instances (each set on a database and Redis prefix of its
//    own, started once), rounds alternating 1 2 3 3 2 1 …; the median of the rounds against the
//    prediction. Within 25 % passes. The table goes between the markers of docs/capacity.md
//    (or is printed: --no-write); exit 1 when a prediction misses by more.
//
// Every window ends once the messages it submitted were processed (`Stores.drained`), so a message's
// work after its 202 is counted in its own window and none is left to the next. 128 connections by
// default: the model predicts what the sets serve once their CPU is the limit, and with 32 a closed
// loop keeps most connections waiting on commits while the CPU idles (one instance's server was 72 %
// busy at 32, docs/capacity.md).
//
//   node bench/capacity/check.mjs [--mix list:80,create:15,message:5] [--rounds 3] [--duration 5] [--connections 128] [--op-connections share|all] [--no-write]
import { cpus } from "node:os"
import { fileURLToPath } from "node:url"
import * as Pg from "../lib/pg.mjs"
import * as Proc from "../lib/proc.mjs"
import { helpAndExit, logger, option, ROOT } from "./args.mjs"
import { machineNow, writeSection } from "./costs.mjs"
import * as Stores from "./stores.mjs"
import * as Window from "./window.mjs"

helpAndExit(import.meta.url)

const argv = process.argv.slice(2)
const settings = {
  mix: option("mix", "list:80,create:15,message:5"),
  rounds: Number(option("rounds", 3)),
  seconds: Number(option("duration", 5)),
  connections: Number(option("connections", 128)),
  instances: option("instances", "1,2,3").split(",").map(Number),
  // How many connections an operation's cost is measured with: `share` (its share of the mix's, what
  // it has in the mix) or `all` (the mix's whole count).
  opConnections: option("op-connections", "share"),
  write: !argv.includes("--no-write")
}
const log = logger("capacity")
const shares = [...settings.mix.matchAll(/(\w+):(\d+)/g)].map((m) => ({ op: m[1], weight: Number(m[2]) }))
const totalWeight = shares.reduce((a, s) => a + s.weight, 0)

/** CPU cores other processes keep busy now, sampled over `ms` while nothing of ours runs. */
const otherLoad = async (ms = 2_000) => {
  const busy0 = Proc.machineBusySeconds()
  await new Promise((r) => setTimeout(r, ms))
  return (Proc.machineBusySeconds() - busy0) / (ms / 1000)
}

/**
 * The connections operation `s` is measured with alone on `n` instances: as many as send it in the mix
 * (its share of them, at least one per instance), so that its writes batch as they do there (a create
 * alone on 128 connections batches with 127 others; in the mix with about 19), or the mix's count.
 */
const opConnections = (s, n) =>
  settings.opConnections === "all" ? settings.connections : Math.max(n, Math.round((settings.connections * s.weight) / totalWeight))

/**
 * A window's costs without what the set spends with no request (its idle cores over the window,
 * shared by its requests): the prediction takes that off the cores once, as a fixed cost, so an
 * operation's cost must not carry it again (it weighs most where an operation is sent on few
 * connections and its requests are few).
 */
const withoutIdle = (m, set) => {
  const perRequest = (cores) => (cores * 1e6 * m.wall) / m.requests
  return {
    ...m,
    serverMicros: Math.max(0, m.serverMicros - perRequest(set.idleServerCores)),
    pgMicros: Math.max(0, m.pgMicros - perRequest(set.idleCores - set.idleServerCores))
  }
}

const sets = []
// Interrupted: stop the servers and remove their databases and keys first.
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => Promise.allSettled(sets.map((s) => s.server.stop())).finally(() => process.exit(130)))

const machine = machineNow()
const cores = cpus().length
try {
  for (const n of settings.instances) {
    log(`starting ${n} instance(s) on PostgreSQL + Redis`)
    const server = await Stores.start("postgres-redis", { root: ROOT, instances: n, log })
    sets.push({ n, server, key: await Stores.account(server) })
  }
  const obs = await Window.observers({ redis: true })
  const one = sets.find((s) => s.n === 1) ?? sets[0]
  const measureOn = (set, mix, seconds, connections = settings.connections) =>
    Window.measure(obs, {
      urls: set.server.urls,
      mix,
      key: set.key,
      connections,
      seconds,
      pids: set.server.pids,
      database: set.server.database,
      // A window ends once its messages were processed: their work is counted where it is caused.
      settle: () => Stores.drained(set.server)
    })
  for (const s of shares) await measureOn(one, `${s.op}:1`, 1) // warm-up
  // Each set served the mix for as long as three windows before any is measured: its first seconds of
  // the mix ran up to 1.7 times slower than later ones (the code's first runs, the statements' plans).
  for (const set of sets) await measureOn(set, settings.mix, 3 * settings.seconds)

  // 0. What each set costs with no request at all (its instances' and its database backends' CPU,
  // cores): the workers' polls, the usage flush, the pool's keep-alive. A fixed cost per set.
  for (const set of sets) {
    const server0 = set.server.pids.reduce((a, pid) => a + Proc.cpuSeconds(pid), 0)
    const db0 = await Pg.backendCpu(set.server.database)
    await new Promise((r) => setTimeout(r, 4_000))
    const server = set.server.pids.reduce((a, pid) => a + Proc.cpuSeconds(pid), 0) - server0
    const db = Pg.backendCpuDelta(db0, await Pg.backendCpu(set.server.database))
    set.idleServerCores = server / 4
    set.idleCores = (server + (Number.isFinite(db) ? db : 0)) / 4
    log(`${set.n} instance(s) idle: ${set.idleServerCores.toFixed(3)} cores of the servers, ${set.idleCores.toFixed(3)} with their database backends`)
  }

  // 1. Costs of each operation of the mix, alone, on every set (rounds alternate the order).
  const parts = ["serverMicros", "pgMicros", "pgAuxMicros", "redisMicros", "loaderMicros", "runnerMicros"]
  const model = {}
  for (const set of sets) {
    const costs = Object.fromEntries(shares.map((s) => [s.op, []]))
    for (let round = 0; round < settings.rounds; round++) {
      for (const s of round % 2 === 0 ? shares : [...shares].reverse()) {
        const m = withoutIdle(await measureOn(set, `${s.op}:1`, settings.seconds, opConnections(s, set.n)), set)
        costs[s.op].push(m)
        log(`cost on ${set.n}: ${s.op.padEnd(8)} server ${m.serverMicros.toFixed(0)} + PG ${(m.pgMicros + m.pgAuxMicros).toFixed(0)} + Redis ${m.redisMicros.toFixed(0)} + wrk ${m.loaderMicros.toFixed(0)} + runner ${m.runnerMicros.toFixed(0)} µs/req (others ${(m.otherMicros * m.requests / m.wall / 1e6).toFixed(2)} cores)`)
      }
    }
    const per = (op, f) => Window.median(costs[op].map((m) => m[f]))
    const mixCost = Object.fromEntries(parts.map((f) => [f, shares.reduce((a, s) => a + (s.weight / totalWeight) * per(s.op, f), 0)]))
    model[set.n] = { mixCost, C: parts.reduce((a, f) => a + mixCost[f], 0), S: mixCost.serverMicros }
    log(`mix ${settings.mix} on ${set.n} instance(s): C = ${model[set.n].C.toFixed(0)} µs of CPU per request, S = ${model[set.n].S.toFixed(0)} µs on the event loops`)
  }
  const { mixCost, C, S } = model[one.n]

  // 3. Measured: the mix against each set, rounds alternating the order.
  const measured = Object.fromEntries(sets.map((s) => [s.n, []]))
  for (let round = 0; round < settings.rounds; round++) {
    for (const set of round % 2 === 0 ? sets : [...sets].reverse()) {
      const idle = await otherLoad()
      const m = await measureOn(set, settings.mix, settings.seconds)
      // The CPU other processes took meanwhile (cores), and the prediction for the cores left.
      const others = (m.otherMicros * m.requests) / m.wall / 1e6
      const available = Math.max(0.05, cores - others)
      // Less what the set spends with no request (measured idle above).
      const predict = ({ C, S }) => {
        const byCores = (Math.max(0.01, available - set.idleCores) * 1e6) / C
        const byLoops = (Math.max(0.01, set.n - set.idleServerCores) * 1e6) / S
        return { predicted: Math.min(byCores, byLoops), byCores: byCores <= byLoops }
      }
      // With the costs measured on this set, and with one instance's (N-independent costs assumed).
      const { byCores, predicted } = predict(model[set.n])
      const fromOne = predict(model[one.n]).predicted
      measured[set.n].push({ ...m, idleCores: idle, others, available, predicted, fromOne, byCores })
      log(`mix on ${set.n} instance(s): ${m.rps.toFixed(0)} req/s, predicted ${predicted.toFixed(0)}, from one instance's costs ${fromOne.toFixed(0)} (others took ${others.toFixed(2)} cores meanwhile, ${idle.toFixed(2)} idle before; server ${m.serverMicros.toFixed(0)} µs/req, failed ${m.failed})`)
    }
  }
  await obs.close()

  // 2. The model's prediction, with the other load seen idle before the measured rounds taken off the cores.
  const rows = sets.map(({ n }) => {
    const mine = measured[n]
    const rps = mine.map((m) => m.rps)
    const ratios = mine.map((m) => m.rps / m.predicted)
    const byCores = mine.filter((m) => m.byCores).length
    return {
      n,
      idle: Window.median(mine.map((m) => m.idleCores)),
      available: Window.median(mine.map((m) => m.available)),
      predicted: Window.median(mine.map((m) => m.predicted)),
      fromOne: Window.median(mine.map((m) => m.fromOne)),
      ratioFromOne: Window.median(mine.map((m) => m.rps / m.fromOne)),
      C: model[n].C,
      S: model[n].S,
      bound: byCores * 2 >= mine.length ? "cores left ÷ C" : `${n} event loop(s) ÷ S`,
      median: Window.median(rps),
      min: Math.min(...rps),
      max: Math.max(...rps),
      ratio: Window.median(ratios),
      ratioMin: Math.min(...ratios),
      ratioMax: Math.max(...ratios),
      failed: mine.reduce((a, m) => a + m.failed, 0),
      serverMicros: Window.median(mine.map((m) => m.serverMicros))
    }
  })
  const pass = rows.every((r) => Math.abs(r.ratio - 1) <= 0.25)
  machine.loadAfter = Proc.loadAverage()
  const lines = [
    `Checked ${machine.date} on ${cores} cores (${machine.model}); load average ${machine.loadBefore.join(" ")} before, ${machine.loadAfter.join(" ")} after. ` +
      `Mix \`${settings.mix}\` (weights), wrk with ${settings.connections} connections split over the instances, ${settings.rounds} rounds × ${settings.seconds} s. ` +
      "Command: `pnpm bench --capacity-check" + (argv.filter((a) => a !== "--no-write").length > 0 ? ` ${argv.filter((a) => a !== "--no-write").join(" ")}` : "") + "`.",
    "",
    `Per request of the mix on one instance (medians of the operations alone, weighted): server ${mixCost.serverMicros.toFixed(0)} µs, PostgreSQL backends ${mixCost.pgMicros.toFixed(0)} µs, ` +
      `PostgreSQL background ${mixCost.pgAuxMicros.toFixed(0)} µs, Redis ${mixCost.redisMicros.toFixed(0)} µs, wrk ${mixCost.loaderMicros.toFixed(0)} µs, the runner ${mixCost.runnerMicros.toFixed(0)} µs: ` +
      `**C = ${C.toFixed(0)} µs** of CPU, **S = ${S.toFixed(0)} µs** on one event loop.`,
    "",
    `With no request, the sets spend ${sets.map((x) => `${x.idleCores.toFixed(3)} cores (${x.n} instance${x.n > 1 ? "s" : ""})`).join(", ")} (servers and their database backends), taken off the cores left before dividing by C.`,
    "",
    "| instances | C / S measured on them (µs) | cores left during the window | predicted req/s | bound by | measured req/s, median (min–max) | measured ÷ predicted, median (min–max) | predicted from one instance's costs (measured ÷ it) | server CPU µs/req in the mix | failed |",
    "|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|",
    ...rows.map((r) => `| ${r.n} | ${r.C.toFixed(0)} / ${r.S.toFixed(0)} | ${r.available.toFixed(2)} | ${r.predicted.toFixed(0)} | ${r.bound} | ${r.median.toFixed(0)} (${r.min.toFixed(0)}–${r.max.toFixed(0)}) | ${r.ratio.toFixed(2)} (${r.ratioMin.toFixed(2)}–${r.ratioMax.toFixed(2)}) | ${r.fromOne.toFixed(0)} (${r.ratioFromOne.toFixed(2)}) | ${r.serverMicros.toFixed(0)} | ${r.failed} |`),
    "",
    pass ? "Every prediction within 25 % of the measurement." : "**At least one prediction misses the measurement by more than 25 %.**"
  ]
  const text = lines.join("\n")
  if (settings.write) {
    writeSection("check", text)
    log("wrote the check into docs/capacity.md")
  }
  process.stdout.write(`${text}\n`)
  process.exitCode = pass ? 0 : 1
} finally {
  for (const s of sets) await s.server.stop().catch(() => {})
}
