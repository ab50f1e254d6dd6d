/**
 * The SQLite → PostgreSQL import as a property: whatever a SQLite store holds (pets with any valid
 * Unicode name, accounts, keys revoked or not, messages in any state, daily counts), once its
 * snapshot is imported into an empty PostgreSQL database, every store port of PostgreSQL answers
 * exactly what the same port of SQLite answers, and page cursors signed by one verify on the other.
 */
import { propEffect } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { AccountStore, DailyQuota, LimiterStateStore, MessageStore, PageCursor, Pet, PetRepository } from "@petstore/core"
import * as Postgres from "@petstore/postgres"
import * as Sqlite from "@petstore/sqlite"
import { Context, Effect, Result, Layer, Option, Schema } from "effect"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"

const database = await TestDatabase.make()

const NOW = 1_767_225_600_000 // 2026-01-01
const text = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: "grapheme", maxLength: 30 }))
const petName = text.filter(Schema.is(Pet.PetName))
const pets = fc.array(
  fc.record({ name: petName, categoryId: fc.integer({ min: 1, max: 10_000 }), status: fc.constantFrom("available", "pending", "sold") }),
  { maxLength: 25 }
)
const accounts = fc.uniqueArray(
  fc.record({
    n: fc.integer({ min: 1, max: 1_000_000 }),
    plan: fc.constantFrom("free", "pro", "business", "enterprise"),
    revokedAt: fc.option(fc.integer({ min: NOW - 86_400_000, max: NOW }), { nil: null }),
    rotatedTo: fc.option(fc.stringMatching(/^key_[A-Za-z0-9]{1,22}$/), { nil: null }),
    used: fc.integer({ min: 0, max: 1_000 }),
    message: fc.option(fc.record({ text, status: fc.constantFrom("queued", "processing", "delivered", "failed") }), { nil: null })
  }),
  { selector: (a) => a.n, maxLength: 6 }
)

type Stores = PetRepository.PetRepository | AccountStore.AccountStore | MessageStore.MessageStore | LimiterStateStore.LimiterStateStore | PageCursor.CursorSigner

/** What every port answers about the records in `fixture`. */
const readBack = (fixture: { readonly keys: ReadonlyArray<AccountStore.KeyRecord>; readonly messageIds: ReadonlyArray<string> }) =>
  Effect.gen(function*() {
    const pets = yield* (yield* PetRepository.PetRepository).listAfter({ afterId: 0, status: Option.none(), limit: 1_000 })
    const store = yield* AccountStore.AccountStore
    const keys = yield* Effect.forEach(fixture.keys, (k) => store.findKeyByHash(k.hash))
    const owners = yield* Effect.forEach(fixture.keys, (k) => store.findAccount(k.accountId))
    const messages = yield* Effect.forEach(fixture.messageIds, (id) => Effect.flatMap(MessageStore.MessageStore, (m) => m.find(id)))
    const limiter = yield* (yield* LimiterStateStore.LimiterStateStore).load(DailyQuota.dayOf(NOW), NOW, NOW - 86_400_000)
    const sorted = <A>(xs: ReadonlyArray<readonly [string, A]>) => [...xs].sort(([a], [b]) => a.localeCompare(b))
    return { pets, keys, owners, messages, quotas: sorted(limiter.quotas) }
  })

if ("skip" in database) {
  describe.skip(`import round trip (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("SQLite → PostgreSQL import", () => {
    propEffect("every port of PostgreSQL answers what SQLite answered, for any content", [pets, accounts], ([petDrafts, accountSpecs]) =>
      Effect.gen(function*() {
        const sqlite = yield* Layer.build(Sqlite.LimiterStateStoreSqlite.layer.pipe(Layer.provideMerge(Sqlite.layer({ filename: ":memory:" }))))
        const keys: Array<AccountStore.KeyRecord> = []
        const messageIds: Array<string> = []
        yield* Effect.gen(function*() {
          const petStore = yield* PetRepository.PetRepository
          for (const draft of petDrafts) yield* petStore.insert(draft as never)
          const store = yield* AccountStore.AccountStore
          for (const spec of accountSpecs) {
            const accountId = `acc_${spec.n}`
            const key = { id: `key_${spec.n}`, accountId, hash: `hash_${spec.n}`, prefix: "psk_live_abcd", createdAt: NOW - 1, expiresAt: null, revokedAt: spec.revokedAt, rotatedTo: spec.rotatedTo }
            yield* store.insertAccount({ id: accountId, name: spec.n % 2 === 0 ? `Name ${spec.n}` : null, plan: spec.plan as never, limits: { perMinute: 60, perDay: 1_000 }, status: spec.n % 3 === 0 ? "suspended" : "active", createdAt: NOW - 1 }, key)
            keys.push(key)
            if (spec.message !== null) {
              const id = `msg_${spec.n}`
              messageIds.push(id)
              yield* (yield* MessageStore.MessageStore).insert({
                id, accountId, message: spec.message.text, status: spec.message.status as never, createdAt: NOW - 5, updatedAt: NOW - 2,
                attempts: spec.message.status === "queued" ? 0 : 1, availableAt: NOW - 5, leaseUntil: 0, lastError: spec.message.status === "failed" ? "gave up" : null
              })
            }
          }
          yield* (yield* LimiterStateStore.LimiterStateStore).save({
            quotas: accountSpecs.map((s) => [`acc_${s.n}`, { day: DailyQuota.dayOf(NOW), used: s.used }] as const),
            standings: []
          })
        }).pipe(Effect.provide(sqlite))
        const before = yield* readBack({ keys, messageIds }).pipe(Effect.provide(sqlite))
        const cursor = Context.get(sqlite, PageCursor.CursorSigner).encode({ afterId: 7, status: Option.some("sold") })

        const snapshot = yield* Sqlite.Export.snapshot.pipe(Effect.provide(sqlite))
        const url = yield* Effect.promise(() => database.freshUrl())
        const postgres = yield* Layer.build(Postgres.layer({ url, poolSize: 2, queryTimeoutMillis: 60_000 }))
        yield* Postgres.Import.importSnapshot(snapshot).pipe(Effect.provide(postgres))
        // The stores read the imported data (the cursor secret is read when the store opens).
        const reopened = yield* Layer.build(Postgres.layer({ url, poolSize: 2, queryTimeoutMillis: 60_000 }))
        const after = yield* readBack({ keys, messageIds }).pipe(Effect.provide(reopened as Context.Context<Stores>))

        expect(after).toStrictEqual(before)
        expect(before.pets.map((p) => p.name)).toStrictEqual(petDrafts.map((p) => p.name))
        expect(Context.get(reopened, PageCursor.CursorSigner).decode(cursor)).toStrictEqual(Result.succeed({ afterId: 7, status: Option.some("sold") }))
      }).pipe(Effect.scoped), { fastCheck: { numRuns: 5 }, timeout: 60_000 })
  })
}
