import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Fiber, Layer, Option, Redacted, TestClock } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Accounts, type Pet, PetRepository, SecureRandom } from "@petstore/core"
import * as Sqlite from "../src/index.js"

const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-group-"))
let files = 0
const freshFile = () => Path.join(folder, `db-${++files}.db`)

const draft = (i: number): PetRepository.PetDraft => ({
  name: `pet ${i}`,
  categoryId: (i % 5 + 1) as Pet.CategoryId,
  status: (["available", "pending", "sold"] as const)[i % 3]!
})

const stores = (filename: string, options: Partial<Sqlite.GroupCommit.GroupCommitOptions> = {}) =>
  Sqlite.layer({ filename, groupCommit: options })

describe("GroupCommit", () => {
  it.live("concurrent durable writes share transactions: fewer commits than writes, every write acknowledged", () =>
    Effect.gen(function*() {
      const repo = yield* PetRepository.PetRepository
      const db = yield* Sqlite.GroupCommit.Database
      const before = yield* db.stats
      const pets = yield* Effect.forEach(Array.from({ length: 200 }, (_, i) => draft(i)), (d) => repo.insert(d), {
        concurrency: "unbounded"
      })
      const after = yield* db.stats
      expect(new Set(pets.map((p) => p.id)).size).toBe(200)
      expect(after.writes - before.writes).toBe(200)
      expect(after.batches - before.batches).toBeLessThan(200)
    }).pipe(Effect.provide(stores(freshFile()))))

  it.live("with maxBatch 1 every write is its own transaction", () =>
    Effect.gen(function*() {
      const repo = yield* PetRepository.PetRepository
      const db = yield* Sqlite.GroupCommit.Database
      const before = yield* db.stats
      yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => draft(i)), (d) => repo.insert(d), { concurrency: "unbounded" })
      const after = yield* db.stats
      expect(after.batches - before.batches).toBe(20)
    }).pipe(Effect.provide(stores(freshFile(), { maxBatch: 1 }))))

  it.live("a failing write in a batch fails alone: its statements are undone, the others commit", () =>
    Effect.gen(function*() {
      const db = yield* Sqlite.GroupCommit.Database
      const sql = yield* SqlClient.SqlClient
      const insert = (name: string, status: string) =>
        sql`INSERT INTO pets (name, category_id, status) VALUES (${name}, 1, ${status})`
      const results = yield* Effect.all([
        db.write(insert("first", "sold")),
        // Breaks a CHECK constraint: an SQL failure, reported as StoreUnavailable.
        db.write(Effect.zipRight(insert("half", "sold"), insert("broken", "lost"))),
        // Fails on its own terms after writing: its write is undone, its error is its own.
        db.write(Effect.zipRight(insert("regretted", "sold"), Effect.fail("changed my mind" as const))),
        db.write(insert("last", "pending"))
      ].map(Effect.either), { concurrency: "unbounded" })
      expect(results.map((r) => r._tag)).toStrictEqual(["Right", "Left", "Left", "Right"])
      expect(results[1]).toMatchObject({ left: { _tag: "StoreUnavailable" } })
      expect(results[2]).toMatchObject({ left: "changed my mind" })
      const names = yield* db.read(sql<{ name: string }>`SELECT name FROM pets ORDER BY id`)
      expect(names.map((r) => r.name)).toStrictEqual(["first", "last"])
    }).pipe(Effect.provide(stores(freshFile()))))

  it.live("a read waits for the batch in progress: it never sees a write before its commit", () =>
    Effect.gen(function*() {
      const repo = yield* PetRepository.PetRepository
      const db = yield* Sqlite.GroupCommit.Database
      const sql = yield* SqlClient.SqlClient
      const inserted = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      // A write that stays inside its transaction, after its insert, until the gate opens.
      const writer = yield* Effect.fork(db.write(
        sql`INSERT INTO pets (name, category_id, status) VALUES ('in flight', 1, 'sold')`.pipe(
          Effect.zipRight(Deferred.succeed(inserted, undefined)),
          Effect.zipRight(Deferred.await(gate))
        )
      ))
      yield* Deferred.await(inserted)
      const reader = yield* Effect.fork(repo.listAfter({ afterId: 0, limit: 10, status: Option.none() }))
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow()
      expect(Option.isNone(yield* Fiber.poll(reader))).toBe(true)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(writer)
      expect((yield* Fiber.join(reader)).map((p) => p.name)).toStrictEqual(["in flight"])
    }).pipe(Effect.provide(stores(freshFile()))))

  it.live("paging while pets are inserted concurrently neither skips nor repeats a pet, nor shows one never acknowledged", () =>
    Effect.gen(function*() {
      const repo = yield* PetRepository.PetRepository
      const db = yield* Sqlite.GroupCommit.Database
      const sql = yield* SqlClient.SqlClient
      const inserted: Array<number> = []
      let writersDone = false
      // Every third write is undone after its insert: its id is handed to the next write of the
      // batch, so a reader that could look inside an open batch would see a pet that never existed.
      const writeOrUndo = (i: number) =>
        i % 3 === 2
          ? Effect.ignore(db.write(Effect.zipRight(
            sql`INSERT INTO pets (name, category_id, status) VALUES ('undone', 1, 'sold')`,
            Effect.fail("undone")
          )))
          : Effect.map(repo.insert(draft(i)), (p) => void inserted.push(p.id))
      const writers = Effect.forEach(
        Array.from({ length: 64 }, (_, w) => w),
        (w) => Effect.forEach(Array.from({ length: 15 }, (_, i) => w * 100 + i), writeOrUndo),
        { concurrency: "unbounded", discard: true }
      ).pipe(Effect.ensuring(Effect.sync(() => (writersDone = true))))

      // Pages of 7 from the start, again and again until the writers are done and a pass reached the end.
      const reader = Effect.gen(function*() {
        const visited: Array<number> = []
        let afterId = 0
        while (true) {
          const finished = writersDone
          const page = yield* repo.listAfter({ afterId, limit: 7, status: Option.none() })
          visited.push(...page.map((p) => p.id))
          if (page.length > 0) afterId = page[page.length - 1]!.id
          if (page.length < 7 && finished) return visited
          yield* Effect.yieldNow()
        }
      })
      const [, visited] = yield* Effect.all([writers, reader], { concurrency: "unbounded" })
      expect(visited).toStrictEqual([...inserted].sort((a, b) => a - b))
    }).pipe(Effect.provide(stores(freshFile()))))
})

describe("AccountStore on SQLite with another process on the same file", () => {
  const accountsOn = (filename: string) =>
    Layer.build(
      Accounts.Accounts.layer({ environment: "production" }).pipe(
        Layer.provideMerge(Sqlite.layer({ filename })),
        Layer.provide(SecureRandom.SecureRandom.Live)
      )
    ).pipe(Effect.map((context) => context.unsafeMap.get(Accounts.Accounts.key) as Accounts.Accounts["Type"]))

  it.scoped("a key revoked by another connection is refused once the poll interval (250 ms) has passed", () =>
    Effect.gen(function*() {
      const filename = freshFile()
      const server = yield* accountsOn(filename)
      const cli = yield* accountsOn(filename)
      const { key } = yield* cli.create({ plan: "free" })
      const token = Redacted.value(key.key)
      // A key created elsewhere works at once (unknown keys are never cached).
      expect(Option.isSome(yield* server.verify(token))).toBe(true)
      yield* cli.revoke(key.id)
      // The server may still serve its cached key until the next look at the file ...
      yield* TestClock.adjust("250 millis")
      // ... and refuses it from then on.
      expect(Option.isNone(yield* server.verify(token))).toBe(true)
      // The same process's own revocation is effective at once, without waiting.
      const other = yield* server.issueKey((yield* server.verify(Redacted.value((yield* cli.create({ plan: "free" })).key.key))).pipe(
        Option.getOrThrow
      ).accountId)
      expect(Option.isSome(yield* server.verify(Redacted.value(other.key)))).toBe(true)
      yield* server.revoke(other.id)
      expect(Option.isNone(yield* server.verify(Redacted.value(other.key)))).toBe(true)
    }))
})
