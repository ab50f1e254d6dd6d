#!/usr/bin/env node
// Start-up and idle memory of the server as shipped (`petstore serve`: bin/petstore.cjs, the bundle
// compiled from its V8 code cache) against the same bundle without the cache
// (bench/servers/bundle-without-cache.cjs), the unbundled server (`dist/bin.js`) and the Fastify peer: each started
// in turn, `--runs N` times (default 7), alternating, on the in-memory store, after one start of
// each that is not counted (it warms the file cache, and writes the code cache if there is none).
// Per start: the time from the spawn to the first 200 on GET /v1/pets, the CPU time the process had
// used by then, and the resident set 1 s later (as `pnpm bench` measures them, bench/lib/targets.mjs),
// and the modules it loaded until then (imported, required or compiled by the bundle's loader:
// packages/server/test/support/record-modules.mjs, in a separate start so that the recorder costs
// the timed ones nothing). Prints the medians as JSON, and each target's ratios to Fastify's
// (median of the per-round ratios). Needs `pnpm run build` first (which writes the bundle).
//
//   node bench/startup.mjs [--runs N] [--targets shipped,fastify,...]
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { start, stop } from "./lib/targets.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))
const at = process.argv.indexOf("--runs")
const runs = at === -1 ? 7 : Number(process.argv[at + 1])
const recorder = join(root, "packages/server/test/support/record-modules.mjs")
const server = (id, bin) => ({ id, argv: [join(root, bin), "serve"], env: { PETSTORE_STORE: "memory" }, kind: "app", scenarios: ["get"] })
const only = process.argv.indexOf("--targets")
const targets = [
  server("shipped", "packages/server/bin/petstore.cjs"),
  server("nocache", "bench/servers/bundle-without-cache.cjs"),
  server("unbundled", "packages/server/dist/bin.js"),
  { id: "fastify", argv: ["bench/peers/fastify.mjs"], kind: "app", scenarios: ["get"] }
].filter((t) => only === -1 || process.argv[only + 1].split(",").includes(t.id))
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const samples = Object.fromEntries(targets.map((t) => [t.id, { startupMs: [], startupCpuMs: [], idleRssMB: [] }]))
for (let i = -1; i < runs; i++) {
  for (const target of i % 2 === 0 ? targets : [...targets].reverse()) {
    const cwd = mkdtempSync(join(tmpdir(), "petstore-startup-"))
    const running = await start({ ...target, cwd }, { root })
    if (i >= 0) {
      samples[target.id].startupMs.push(running.startupMs)
      samples[target.id].startupCpuMs.push(running.startupCpuMs)
      samples[target.id].idleRssMB.push(running.idleRss / 2 ** 20)
    }
    await stop(running)
    rmSync(cwd, { recursive: true, force: true })
  }
}
const modules = {}
for (const target of targets) {
  const cwd = mkdtempSync(join(tmpdir(), "petstore-startup-"))
  const record = join(cwd, "modules.txt")
  const running = await start({ ...target, cwd, env: { ...target.env, PETSTORE_TEST_MODULE_RECORD: record } }, { root, nodeArgs: ["--import", recorder] })
  await stop(running)
  // (The recorder's own file aside.)
  modules[target.id] = new Set(readFileSync(record, "utf8").split("\n").filter((l) => l.startsWith("file:") && !l.endsWith("/record-modules.mjs"))).size
  rmSync(cwd, { recursive: true, force: true })
}
const peer = samples.fastify
/** The median over the rounds of a target's value divided by Fastify's in the same round. */
const ratio = (xs, ys) => (ys === undefined ? undefined : Math.round(median(xs.map((x, i) => x / ys[i])) * 100) / 100)
const result = Object.fromEntries(targets.map((t) => [t.id, {
  startupMs: Math.round(median(samples[t.id].startupMs)),
  startupCpuMs: Math.round(median(samples[t.id].startupCpuMs)),
  idleRssMB: Math.round(median(samples[t.id].idleRssMB) * 10) / 10,
  modules: modules[t.id],
  toFastify: {
    startupMs: ratio(samples[t.id].startupMs, peer?.startupMs),
    startupCpuMs: ratio(samples[t.id].startupCpuMs, peer?.startupCpuMs),
    idleRssMB: ratio(samples[t.id].idleRssMB, peer?.idleRssMB)
  },
  samples: {
    startupMs: samples[t.id].startupMs.map(Math.round),
    startupCpuMs: samples[t.id].startupCpuMs.map(Math.round),
    idleRssMB: samples[t.id].idleRssMB.map((x) => Math.round(x))
  }
}]))
console.log(JSON.stringify({ runs, loadAverage: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number), ...result }, null, 2))
