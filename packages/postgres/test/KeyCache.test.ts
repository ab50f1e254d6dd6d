/**
 * The key cache of `AccountStore` on PostgreSQL, between two instances on one database: the bound a
 * revocation takes to reach every instance is the cache's age limit (`keyCacheMillis`, 1 s), which
 * holds even when the instance misses the notification; with notifications, the other instance drops
 * the key as soon as one arrives. The instances read a clock the test sets (`MovableClock`), so the
 * bound is checked to the millisecond, never by racing a wall clock.
 */
import * as Clock from "effect/Clock"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Context } from "effect"
import { AccountStore } from "@petstore/core"
import * as Postgres from "@petstore/postgres"
import * as MovableClock from "../../core/test/support/MovableClock.js"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()

const KEY_CACHE_MILLIS = Postgres.AccountStorePg.DEFAULT_OPTIONS.keyCacheMillis
const T0 = 1_700_000_000_000

/** The instances' clock, stopped at the instant a test sets. */
const time = MovableClock.make()

/** An instance's account store on `url`, reading `time`, for the life of the scope. */
const instance = (url: string) =>
  Effect.map(
    Effect.provideService(Layer.build(Postgres.layer({ url, poolSize: 2 })), Clock.Clock, time.clock),
    (context) => Context.getUnsafe(context, AccountStore.AccountStore)
  )

/** The key with `hash` as `store` finds it at `now`. */
const findAt = (store: AccountStore.AccountStore["Service"], hash: string, now: number) =>
  Effect.suspend(() => {
    time.set(now)
    return store.findKeyByHash(hash)
  })

const keyOf = (n: number): AccountStore.KeyRecord => ({
  id: `key_cache_${n}`,
  accountId: `acc_cache_${n}`,
  hash: `hash-${n}`,
  prefix: `pk_${n}`,
  createdAt: T0,
  expiresAt: null,
  revokedAt: null,
  rotatedTo: null
})
const accountOf = (n: number): AccountStore.Account => ({ id: `acc_cache_${n}`, name: null, plan: "free", limits: { perMinute: 60, perDay: 1_000 }, status: "active", createdAt: T0 })

const revokedAt = (found: Option.Option<AccountStore.KeyRecord>) => Option.getOrThrow(found).revokedAt

/** Asks `store` for the key at the fixed time `now` until it reads as revoked: only a notification can change it then. */
const untilRevoked = (store: AccountStore.AccountStore["Service"], hash: string, now: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500; i++) {
      if (revokedAt(yield* findAt(store, hash, now)) !== null) return
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
    }
    throw new Error("the other instance never dropped the revoked key (no notification within 500 tries)")
  })

/** The account with `id` as `store` finds it at `now`. */
const findAccountAt = (store: AccountStore.AccountStore["Service"], id: string, now: number) =>
  Effect.suspend(() => {
    time.set(now)
    return store.findAccount(id)
  })

const statusAt = (found: Option.Option<AccountStore.Account>) => Option.getOrThrow(found).status

/** Asks `store` for the account at the fixed time `now` until it has `status`: only a notification can change it then. */
const untilStatus = (store: AccountStore.AccountStore["Service"], id: string, now: number, status: AccountStore.Account["status"]) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500; i++) {
      if (statusAt(yield* findAccountAt(store, id, now)) === status) return
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
    }
    throw new Error(`the other instance never saw the account ${status} (no notification within 500 tries)`)
  })

/**
 * Two instances on one new schema, once b listens: b has dropped a key another instance revoked (by
 * its notification, or by the listener's start, which empties the cache); either way no later start
 * of the listener can empty b's cache behind a test's back.
 */
const twoInstances = (db: TestDatabase.TestDatabase) => Effect.gen(function*() {
  const url = yield* Effect.promise(() => db.freshUrl())
  const [a, b] = [yield* instance(url), yield* instance(url)]
  yield* a.insertAccount(accountOf(0), keyOf(0))
  yield* findAt(b, keyOf(0).hash, T0)
  yield* a.revokeKey(keyOf(0).id, T0)
  yield* untilRevoked(b, keyOf(0).hash, T0)
  return { url, a, b }
})

if ("skip" in database) {
  describe.skip(`key cache on PostgreSQL (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("key cache on PostgreSQL, two instances", () => {
    it.live("a revocation by one instance is seen by the other through its notification, before the cache's age limit", () =>
      Effect.gen(function*() {
        const { a, b } = yield* twoInstances(database)
        yield* a.insertAccount(accountOf(1), keyOf(1))
        expect(revokedAt(yield* findAt(b, keyOf(1).hash, T0))).toBeNull() // cached by b at T0
        yield* a.revokeKey(keyOf(1).id, T0 + 5)
        // At T0, well inside the age limit, b can only see the revocation by dropping its cached key.
        yield* untilRevoked(b, keyOf(1).hash, T0)
      }).pipe(Effect.scoped), 30_000)

    it.live("with the notification lost, the other instance uses its cached key until the age limit and never after it", () =>
      Effect.gen(function*() {
        const { a, b, url } = yield* twoInstances(database)
        yield* a.insertAccount(accountOf(3), keyOf(3))
        expect(revokedAt(yield* findAt(b, keyOf(3).hash, T0))).toBeNull() // cached by b at T0
        // Revoked behind the instances' backs: no NOTIFY, as if the notification were lost.
        const sql = TestDatabase.connect(url)
        yield* Effect.promise(() => sql.query("UPDATE api_keys SET revoked_at = $2 WHERE id = $1", [keyOf(3).id, T0 + 1]))
        yield* Effect.promise(() => sql.end())
        expect(revokedAt(yield* findAt(b, keyOf(3).hash, T0 + KEY_CACHE_MILLIS - 1))).toBeNull()
        expect(revokedAt(yield* findAt(b, keyOf(3).hash, T0 + KEY_CACHE_MILLIS))).toBe(T0 + 1)
        expect(KEY_CACHE_MILLIS).toBe(1_000) // the bound docs/admin.md publishes
      }).pipe(Effect.scoped), 30_000)

    it.live("a suspension by one instance is seen by the other through its notification (account:<id>), before the age limit", () =>
      Effect.gen(function*() {
        const { a, b } = yield* twoInstances(database)
        yield* a.insertAccount(accountOf(4), keyOf(4))
        expect(statusAt(yield* findAccountAt(b, accountOf(4).id, T0))).toBe("active") // cached by b at T0
        yield* a.updateAccount(accountOf(4).id, { status: "suspended" })
        // At T0, well inside the age limit, b can only see the suspension by dropping its cached account.
        yield* untilStatus(b, accountOf(4).id, T0, "suspended")
        yield* a.updateAccount(accountOf(4).id, { status: "active" })
        yield* untilStatus(b, accountOf(4).id, T0, "active")
      }).pipe(Effect.scoped), 30_000)

    it.live("with the notification lost, the other instance uses its cached account until the age limit and never after it", () =>
      Effect.gen(function*() {
        const { a, b, url } = yield* twoInstances(database)
        yield* a.insertAccount(accountOf(5), keyOf(5))
        expect(statusAt(yield* findAccountAt(b, accountOf(5).id, T0))).toBe("active") // cached by b at T0
        // Suspended behind the instances' backs: no NOTIFY, as if the notification were lost.
        const sql = TestDatabase.connect(url)
        yield* Effect.promise(() => sql.query("UPDATE accounts SET status = 'suspended' WHERE id = $1", [accountOf(5).id]))
        yield* Effect.promise(() => sql.end())
        expect(statusAt(yield* findAccountAt(b, accountOf(5).id, T0 + KEY_CACHE_MILLIS - 1))).toBe("active")
        expect(statusAt(yield* findAccountAt(b, accountOf(5).id, T0 + KEY_CACHE_MILLIS))).toBe("suspended")
      }).pipe(Effect.scoped), 30_000)
  })
}
