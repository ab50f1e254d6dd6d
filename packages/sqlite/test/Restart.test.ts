import * as Clock from "effect/Clock"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import Sqlite3 from "better-sqlite3"
import { Accounts, MessageProcessor, MessageQueue, PageCursor, Pets, RateLimiter } from "@petstore/core"
import * as MovableClock from "../../core/test/support/MovableClock.js"
import * as Sqlite from "../src/index.js"

const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-restart-"))
let files = 0
const freshFile = () => Path.join(folder, `db-${++files}.db`)

/** One run of a server on `filename`: the whole pet store on SQLite, closed when `f` ends. */
const run = <A, E>(
  filename: string,
  f: Effect.Effect<
    A,
    E,
    Accounts.Accounts | Pets.Pets | MessageQueue.MessageQueue | RateLimiter.RateLimiter | PageCursor.CursorSigner | Sqlite.Connection.Connection
  >
) =>
  Effect.scoped(
    Effect.provide(
      f,
      Sqlite.layerPetstore({ filename, petstore: { messageQueue: { pollMillis: 50 } } }).pipe(
        Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
      )
    )
  )

const openError = (filename: string) =>
  Effect.flip(Effect.scoped(Layer.build(Sqlite.layer({ filename }))))

describe("SQLite: what survives a restart", () => {
  it.live("pets, accounts, keys, messages and page cursors are all there after a restart", () =>
    Effect.gen(function*() {
      const filename = freshFile()
      const first = yield* run(
        filename,
        Effect.gen(function*() {
          const accounts = yield* Accounts.Accounts
          const pets = yield* Pets.Pets
          const queue = yield* MessageQueue.MessageQueue
          const { account, key } = yield* accounts.create({ plan: "pro" })
          const revoked = yield* accounts.issueKey(account.id)
          yield* accounts.revoke(revoked.id)
          const created = yield* Effect.forEach(["a", "b", "c"], (name) => pets.create({ name, categoryId: 7 as never }))
          const page = yield* pets.list({ limit: 2, status: Option.none(), cursor: Option.none() })
          const message = yield* queue.submit(account.id, "hello")
          return { account, key, revoked, created, cursor: Option.getOrThrow(page.next), message }
        })
      )
      yield* run(
        filename,
        Effect.gen(function*() {
          const accounts = yield* Accounts.Accounts
          const pets = yield* Pets.Pets
          const queue = yield* MessageQueue.MessageQueue
          expect(yield* accounts.verify(Redacted.value(first.key.key))).toStrictEqual(
            Option.some({ accountId: first.account.id, keyId: first.key.id, limits: first.account.limits, suspended: false })
          )
          expect(Option.isNone(yield* accounts.verify(Redacted.value(first.revoked.key)))).toBe(true)
          // The cursor secret is in the database: a cursor from before the restart goes on where it was.
          const rest = yield* pets.list({ limit: 2, status: Option.none(), cursor: Option.some(first.cursor) })
          expect(rest.pets).toStrictEqual([first.created[2]])
          expect((yield* queue.get(first.account.id, first.message.id)).id).toBe(first.message.id)
          expect(yield* accounts.countAccounts).toBe(1)
        })
      )
    }))

  it.live("daily counts and bans survive a restart; the per-minute bucket starts full", () =>
    Effect.gen(function*() {
      const filename = freshFile()
      const limits = { perMinute: 5, perDay: 8 }
      const subject = { accountId: "acc_limited", keyId: "key_limited", limits }
      const banned = { accountId: "acc_banned", keyId: "key_banned", limits: { perMinute: 1, perDay: 1_000 } }
      const { advance, clock } = MovableClock.make()
      yield* Effect.provideService(run(
          filename,
          Effect.gen(function*() {
            const limiter = yield* RateLimiter.RateLimiter
            for (let i = 0; i < 5; i++) expect((yield* limiter.admit(subject)).verdict).toBe("allowed")
            // One allowed, one refused, then, after the grace that follows the refusal, more than the
            // threshold (10) of early retries: banned.
            const verdicts = [(yield* limiter.admit(banned)).verdict, (yield* limiter.admit(banned)).verdict]
            advance(RateLimiter.DEFAULT_OPTIONS.ban.graceMillis)
            for (let i = 0; i < 11; i++) verdicts.push((yield* limiter.admit(banned)).verdict)
            expect(verdicts.at(-1)).toBe("key_banned")
          })
        ), Clock.Clock, clock)
      yield* run(
        filename,
        Effect.gen(function*() {
          const limiter = yield* RateLimiter.RateLimiter
          // 5 of 8 were used before the restart: 3 left, though the minute bucket (5) is full again.
          const after = []
          for (let i = 0; i < 4; i++) after.push((yield* limiter.admit(subject)).verdict)
          expect(after).toStrictEqual(["allowed", "allowed", "allowed", "daily_quota_exceeded"])
          expect((yield* limiter.admit(banned)).verdict).toBe("key_banned")
        })
      )
    }))

  it.live("daily counts are written behind within about a second, without a shutdown", () =>
    Effect.gen(function*() {
      const filename = freshFile()
      const subject = { accountId: "acc_behind", keyId: "key_behind", limits: { perMinute: 100, perDay: 100 } }
      yield* run(
        filename,
        Effect.gen(function*() {
          const limiter = yield* RateLimiter.RateLimiter
          for (let i = 0; i < 3; i++) yield* limiter.admit(subject)
          // Another connection, as after a crash: bounded polling, no timing threshold.
          const reader = new Sqlite3(filename, { readonly: true })
          try {
            let used = 0
            for (let i = 0; i < 100 && used < 3; i++) {
              yield* Effect.sleep("100 millis")
              const row = reader.prepare("SELECT used FROM limiter_quotas WHERE account_id = ?").get(subject.accountId) as
                | { used: number }
                | undefined
              used = row?.used ?? 0
            }
            expect(used).toBe(3)
          } finally {
            reader.close()
          }
        })
      )
    }))
})

describe("SQLite: schema versions", () => {
  it.live("a database of an older version is upgraded in place, its data kept", () =>
    Effect.gen(function*() {
      const filename = freshFile()
      // Version 2 of the schema (pets, accounts, keys), with data in it.
      yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(Sqlite.Connection.layer({ filename }))
        const connection = Context.get(context, Sqlite.Connection.Connection)
        yield* Effect.provide(Sqlite.Migrations.migrate(filename, Sqlite.Migrations.MIGRATIONS.slice(0, 2)), context)
        connection.prepare("INSERT INTO pets (name, category_id, status) VALUES ('old', 1, 'sold')").run()
      }))
      yield* run(
        filename,
        Effect.gen(function*() {
          const pets = yield* Pets.Pets
          const queue = yield* MessageQueue.MessageQueue
          expect(yield* pets.get(1 as never)).toStrictEqual({ id: 1, name: "old", categoryId: 1, status: "sold" })
          const message = yield* queue.submit("acc_x", "new table works")
          expect(message.status).toBe("queued")
          const connection = yield* Sqlite.Connection.Connection
          const versions = connection.prepare("SELECT id FROM schema_migrations ORDER BY id").pluck().all()
          expect(versions).toStrictEqual(Sqlite.Migrations.MIGRATIONS.map((m) => m.id))
        })
      )
    }))

  it.live("a database of a newer version is refused with a clear error", () =>
    Effect.gen(function*() {
      const filename = freshFile()
      yield* run(filename, Effect.void)
      const db = new Sqlite3(filename)
      db.prepare("INSERT INTO schema_migrations (id, name, applied_at) VALUES (999, 'future', 0)").run()
      db.close()
      const error = yield* openError(filename)
      expect(error._tag).toBe("DatabaseOpenError")
      expect(error.message).toMatch(/schema version 999, newer than this program knows/)
    }))
})

describe("SQLite: a bad or locked file is a clear error at start", () => {
  it.live("a file that is not a database", () =>
    Effect.gen(function*() {
      const filename = freshFile()
      Fs.writeFileSync(filename, "this is not a database, ".repeat(100))
      const error = yield* openError(filename)
      expect(error.message).toBe(`database ${JSON.stringify(filename)} is not a SQLite database (or it is encrypted or damaged)`)
    }))

  it.live("a path under a file, and a folder", () =>
    Effect.gen(function*() {
      const file = freshFile()
      Fs.writeFileSync(file, "")
      expect((yield* openError(Path.join(file, "x.db"))).message).toMatch(/cannot be opened: check that the path/)
      expect((yield* openError(folder)).message).toMatch(/cannot be opened: check that the path/)
    }))

  it.live("a file another process holds a write lock on: a new file, and a database in WAL mode (after the busy timeout)", () =>
    Effect.gen(function*() {
      const plain = freshFile()
      const wal = freshFile()
      yield* run(wal, Effect.void)
      for (const filename of [plain, wal]) {
        const holder = new Sqlite3(filename)
        holder.exec("CREATE TABLE IF NOT EXISTS t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
        try {
          const error = yield* openError(filename)
          expect(error.message).toBe(
            `database ${JSON.stringify(filename)} is locked by another process; stop the process that holds it, or use another file`
          )
        } finally {
          holder.exec("ROLLBACK")
          holder.close()
        }
      }
    }), 30_000)

  it.live("the folder of a new database is created", () =>
    Effect.gen(function*() {
      const filename = Path.join(folder, "nested", "deeper", "petstore.db")
      yield* run(filename, Effect.void)
      expect(Fs.existsSync(filename)).toBe(true)
    }))
})
