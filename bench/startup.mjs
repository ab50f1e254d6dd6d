#!/usr/bin/env node
// Start-up and idle memory of the bundled server against the unbundled one (and the Fastify peer):
// each started in turn, `--runs N` times (default 7), alternating, on the in-memory store. Per start:
// the time from the spawn to the first 200 on GET /v1/pets and the resident set 1 s later (as
// `pnpm bench` measures them, bench/lib/targets.mjs), and the ES modules it imported until then (a
// resolve hook, `node --import`, in a separate start so that the hook costs the timed ones nothing).
// Prints the medians as JSON. Needs `pnpm run build` and `pnpm bundle` first.
//
//   node bench/startup.mjs [--runs N]
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
const targets = [
  server("unbundled", "packages/server/dist/bin.js"),
  server("bundled", "packages/server/dist-bundle/petstore.mjs"),
  { id: "fastify", argv: ["bench/peers/fastify.mjs"], kind: "app", scenarios: ["get"] }
]
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const samples = Object.fromEntries(targets.map((t) => [t.id, { startupMs: [], idleRssMB: [] }]))
for (let i = 0; i < runs; i++) {
  for (const target of i % 2 === 0 ? targets : [...targets].reverse()) {
    const cwd = mkdtempSync(join(tmpdir(), "petstore-startup-"))
    const running = await start({ ...target, cwd }, { root })
    samples[target.id].startupMs.push(running.startupMs)
    samples[target.id].idleRssMB.push(running.idleRss / 2 ** 20)
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
  modules[target.id] = new Set(readFileSync(record, "utf8").split("\n").filter((l) => l.startsWith("file:"))).size
  rmSync(cwd, { recursive: true, force: true })
}
const result = Object.fromEntries(targets.map((t) => [t.id, {
  startupMs: Math.round(median(samples[t.id].startupMs)),
  idleRssMB: Math.round(median(samples[t.id].idleRssMB) * 10) / 10,
  esmModules: modules[t.id],
  samples: { startupMs: samples[t.id].startupMs.map(Math.round), idleRssMB: samples[t.id].idleRssMB.map((x) => Math.round(x)) }
}]))
console.log(JSON.stringify({ runs, ...result }, null, 2))
