import { TestClock } from "effect/testing"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Redacted } from "effect"
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
      const connection = yield* Sqlite.Connection.Connection
      const insert = connection.prepare("INSERT INTO pets (name, category_id, status) VALUES (?, 1, ?)")
      const names = connection.prepare("SELECT name FROM pets ORDER BY id").pluck()
      const results = yield* Effect.all([
        db.write(() => insert.run("first", "sold")),
        // Breaks a CHECK constraint after a first insert: an SQL failure, reported as StoreUnavailable.
        db.write(() => {
          insert.run("half", "sold")
          insert.run("broken", "lost")
        }),
        // Throws on its own terms after writing: its write is undone, its error is its cause.
        db.write(() => {
          insert.run("regretted", "sold")
          throw new Error("changed my mind")
        }),
        db.write(() => insert.run("last", "pending"))
      ].map(Effect.result), { concurrency: "unbounded" })
      expect(results.map((r) => r._tag)).toStrictEqual(["Success", "Failure", "Failure", "Success"])
      expect(results[1]).toMatchObject({ failure: { _tag: "StoreUnavailable" } })
      expect(results[2]).toMatchObject({ failure: { _tag: "StoreUnavailable", cause: new Error("changed my mind") } })
      expect(yield* db.read(() => names.all())).toStrictEqual(["first", "last"])
    }).pipe(Effect.provide(stores(freshFile()))))

  it.live("a queued write is not visible before its commit, and is once its Effect answered", () =>
    Effect.gen(function*() {
      const repo = yield* PetRepository.PetRepository
      const list = repo.listAfter({ afterId: 0, limit: 10, status: Option.none() })
      const writer = yield* Effect.forkChild(repo.insert(draft(1)))
      // The write is queued for the end of this turn of the event loop: a read now sees nothing.
      expect(yield* list).toStrictEqual([])
      const pet = yield* Fiber.await(writer).pipe(Effect.flatten)
      expect(yield* list).toStrictEqual([pet])
    }).pipe(Effect.provide(stores(freshFile()))))

  it.live("more writes than maxBatch: every one is committed, in batches no larger than maxBatch", () =>
    Effect.gen(function*() {
      const repo = yield* PetRepository.PetRepository
      const db = yield* Sqlite.GroupCommit.Database
      const pets = yield* Effect.forEach(Array.from({ length: 50 }, (_, i) => draft(i)), (d) => repo.insert(d), {
        concurrency: "unbounded"
      })
      const stats = yield* db.stats
      expect(new Set(pets.map((p) => p.id)).size).toBe(50)
      expect(stats.writes).toBeGreaterThanOrEqual(50)
      expect(stats.batches).toBeGreaterThanOrEqual(Math.ceil(50 / 8))
    }).pipe(Effect.provide(stores(freshFile(), { maxBatch: 8 }))))

  it.live("writes still queued when the layer closes are committed before the connection closes", () =>
    Effect.gen(function*() {
      const filename = freshFile()
      yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(stores(filename))
        const repo = Context.get(context, PetRepository.PetRepository)
        // Queued, never awaited: the layer closes in this same turn.
        for (let i = 0; i < 5; i++) yield* Effect.forkChild(repo.insert(draft(i)))
        yield* Effect.yieldNow
      }))
      const pets = yield* Effect.scoped(Effect.flatMap(
        Layer.build(stores(filename)),
        (context) =>
          Effect.provide(
            Effect.flatMap(PetRepository.PetRepository, (repo) => repo.listAfter({ afterId: 0, limit: 10, status: Option.none() })),
            context
          )
      ))
      expect(pets.map((p) => p.name)).toStrictEqual([0, 1, 2, 3, 4].map((i) => draft(i).name))
    }))

  it.live("paging while pets are inserted concurrently neither skips nor repeats a pet, nor shows one never acknowledged", () =>
    Effect.gen(function*() {
      const repo = yield* PetRepository.PetRepository
      const db = yield* Sqlite.GroupCommit.Database
      const connection = yield* Sqlite.Connection.Connection
      const insertUndone = connection.prepare("INSERT INTO pets (name, category_id, status) VALUES ('undone', 1, 'sold')")
      const inserted: Array<number> = []
      let writersDone = false
      // Every third write is undone after its insert: its id is handed to the next write of the
      // batch, so a reader that could look inside an open batch would see a pet that never existed.
      const writeOrUndo = (i: number) =>
        i % 3 === 2
          ? Effect.ignore(db.write(() => {
            insertUndone.run()
            throw new Error("undone")
          }))
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
          yield* Effect.yieldNow
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
    ).pipe(Effect.map((context) => Context.getUnsafe(context, Accounts.Accounts)))

  it.effect("a key revoked by another connection is refused once the poll interval (250 ms) has passed", () =>
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

  it.effect("an account suspended by another connection is refused once the poll interval (250 ms) has passed; resumed, likewise", () =>
    Effect.gen(function*() {
      const filename = freshFile()
      const server = yield* accountsOn(filename)
      const cli = yield* accountsOn(filename)
      const { account, key } = yield* cli.create({ plan: "free" })
      const token = Redacted.value(key.key)
      const suspended = Effect.map(server.verify(token), (principal) => Option.getOrThrow(principal).suspended)
      // The server caches the key and its account.
      expect(yield* suspended).toBe(false)
      yield* cli.update(account.id, { status: "suspended" })
      // It may serve its cached account until its next look at the file ...
      yield* TestClock.adjust("250 millis")
      // ... and refuses the account's keys from then on, and sees it suspended.
      expect(yield* suspended).toBe(true)
      expect((yield* server.findAccount(account.id)).status).toBe("suspended")
      yield* cli.update(account.id, { status: "active" })
      yield* TestClock.adjust("250 millis")
      expect(yield* suspended).toBe(false)
      expect((yield* server.findAccount(account.id)).status).toBe("active")
    }))

  it.live("a revocation whose caller stopped waiting still takes effect once committed: no stale key stays cached", () =>
    Effect.scoped(Effect.gen(function*() {
      const accounts = yield* accountsOn(freshFile())
      const { key } = yield* accounts.create({ plan: "free" })
      const token = Redacted.value(key.key)
      expect(Option.isSome(yield* accounts.verify(token))).toBe(true)
      // The revocation is queued, then its caller is interrupted before the batch commits.
      const revoking = yield* Effect.forkChild(accounts.revoke(key.id))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(revoking)
      // A lookup before the commit may still see (and cache) the key as it was ...
      yield* accounts.verify(token)
      // ... but once the batch has committed, the key is refused.
      yield* Effect.sleep("20 millis")
      expect(Option.isNone(yield* accounts.verify(token))).toBe(true)
    })))
})
