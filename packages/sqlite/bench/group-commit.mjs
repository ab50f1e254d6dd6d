// Durable pet creates per second on a SQLite file (WAL, synchronous=FULL), with group commit and
// without (one transaction, so one fsync, per create), in the same run on the same machine.
// Run after `pnpm build`:  node packages/sqlite/bench/group-commit.mjs [creates] [concurrency]
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { PetRepository } from "@petstore/core"
import * as Sqlite from "@petstore/sqlite"

const creates = Number(process.argv[2] ?? 4000)
const concurrency = Number(process.argv[3] ?? 64)
const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-bench-"))

const measure = (label, maxBatch) =>
  Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(Sqlite.layer({ filename: Path.join(folder, `${label}.db`), groupCommit: { maxBatch } }))
    const repo = context.unsafeMap.get(PetRepository.PetRepository.key)
    const db = context.unsafeMap.get(Sqlite.GroupCommit.Database.key)
    // Warm up (prepared statements, file growth).
    yield* Effect.forEach(Array.from({ length: 200 }), () => repo.insert({ name: "warm", categoryId: 1, status: "available" }), { concurrency })
    const before = yield* db.stats
    const started = performance.now()
    yield* Effect.forEach(
      Array.from({ length: creates }, (_, i) => i),
      (i) => repo.insert({ name: `pet ${i}`, categoryId: 1 + (i % 9), status: "available" }),
      { concurrency, discard: true }
    )
    const seconds = (performance.now() - started) / 1000
    const after = yield* db.stats
    const batches = after.batches - before.batches
    return { label, maxBatch, creates, perSecond: Math.round(creates / seconds), commits: batches, perCommit: +(creates / batches).toFixed(1) }
  }))

const results = []
for (const [label, maxBatch] of [["grouped", 256], ["one-per-commit", 1], ["grouped-again", 256], ["one-per-commit-again", 1]]) {
  results.push(await Effect.runPromise(measure(label, maxBatch)))
}
console.table(results)
const mean = (l) => results.filter((r) => r.maxBatch === l).reduce((s, r) => s + r.perSecond, 0) / 2
console.log(`concurrency ${concurrency}: grouped ${Math.round(mean(256))}/s vs one commit per create ${Math.round(mean(1))}/s: ${(mean(256) / mean(1)).toFixed(1)}x`)
Fs.rmSync(folder, { recursive: true, force: true })
