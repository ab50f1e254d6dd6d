/**
 * Laws every `AccountStore` implementation obeys.
 *
 * @since 1.0.0
 */
import { fromSchema } from "../arbitraries/FromSchema.js"
import * as fc from "fast-check"
import { describe, expect } from "@effect/vitest"
import { Effect, Result, Layer, Option, Redacted } from "effect"
import { Accounts, AccountListing, AccountStore, ApiKey, Plan, SecureRandom } from "@petstore/core"
import { accountListingLaws } from "./AccountListingLaws.js"
import type { LawSuiteOptions } from "./LawSuite.js"
import { base62, byId, instant, numRuns, plain, property, stringsIn } from "./internal/support.js"

type Store = AccountStore.AccountStore["Service"]
type Account = AccountStore.Account
type KeyRecord = AccountStore.KeyRecord

const accountId = base62(22).map((s) => `acc_${s}`)
const nullableInstant = fc.option(instant, { nil: null })

const account = (id: string): fc.Arbitrary<Account> =>
  fc.record({
    id: fc.constant(id),
    name: fc.option(fromSchema(AccountListing.AccountName), { nil: null }),
    plan: fromSchema(Plan.Plan),
    limits: fromSchema(Plan.PlanLimits),
    status: fc.constantFrom<AccountListing.AccountStatus>("active", "suspended"),
    createdAt: instant
  })

/** A key record; its hash is derived from its (unique) id, so hashes are unique too. */
const keyRecord = (accountId: string, id: string): fc.Arbitrary<KeyRecord> =>
  fc.record({
    id: fc.constant(id),
    accountId: fc.constant(accountId),
    hash: fc.constant(ApiKey.hash(id)),
    prefix: fc.tuple(fc.constantFrom(...Object.values(ApiKey.KEY_PREFIX)), base62(4)).map(([p, s]) => p + s),
    createdAt: instant,
    expiresAt: nullableInstant,
    revokedAt: nullableInstant,
    // Keys rotated already, by a successor the laws never store.
    rotatedTo: fc.option(base62(8).map((s) => `key_successor_${s}`), { nil: null })
  })

interface Holding {
  readonly account: Account
  /** The first key, then the others; never empty. */
  readonly keys: ReadonlyArray<KeyRecord>
}

/** Accounts with distinct ids, each with one to four keys with distinct ids. */
const holdings: fc.Arbitrary<ReadonlyArray<Holding>> = fc.uniqueArray(accountId, { minLength: 1, maxLength: 4 }).chain(
  (ids) =>
    fc.tuple(...ids.map((id, a) =>
      fc.tuple(account(id), fc.array(base62(8), { minLength: 1, maxLength: 4 })).chain(([acc, suffixes]) =>
        fc.tuple(...suffixes.map((s, k) => keyRecord(id, `key_${a}_${k}_${s}`))).map((keys): Holding => ({ account: acc, keys }))
      )
    ))
)

/** One account with one key, as most laws need. */
const single: fc.Arbitrary<Holding> = accountId.chain((id) =>
  fc.tuple(account(id), keyRecord(id, `key_0_0_${id.slice(4)}`)).map(([acc, key]) => ({ account: acc, keys: [key] }))
)

const storeAll = (store: Store, hs: ReadonlyArray<Holding>) =>
  Effect.forEach(hs, ({ account, keys: [first, ...rest] }) =>
    Effect.andThen(store.insertAccount(account, first!), Effect.forEach(rest, (k) => store.insertKey(k))), { discard: true })

/** The key that replaces `old` in a rotation, with id `id`. */
const successor = (old: KeyRecord, id: string): KeyRecord => ({
  ...old,
  id,
  hash: ApiKey.hash(id),
  expiresAt: null,
  revokedAt: null,
  rotatedTo: null
})

/** The failure of rotating `id` again, once it was replaced by `successorId`. */
const alreadyRotated = (id: string, successorId: string) => ({ _tag: "KeyAlreadyRotated", id, successorId })

/** `key` was never stored: neither its id nor its hash is found. */
const expectAbsent = (store: Store, key: KeyRecord) =>
  Effect.gen(function*() {
    expect(Option.isNone(yield* store.findKey(key.id))).toBe(true)
    expect(Option.isNone(yield* store.findKeyByHash(key.hash))).toBe(true)
  })

const expectKey = (store: Store, key: KeyRecord) =>
  Effect.gen(function*() {
    expect(Option.map(yield* store.findKey(key.id), plain)).toStrictEqual(Option.some(key))
    expect(Option.map(yield* store.findKeyByHash(key.hash), plain)).toStrictEqual(Option.some(key))
  })

/** What the laws of this suite share: its parameters and the helpers over its layer. */
const suiteOf = <E>(
  name: string,
  layer: Layer.Layer<AccountStore.AccountStore, E>,
  options?: LawSuiteOptions
) => {
  const withStore = <A, E2>(f: (store: Store) => Effect.Effect<A, E2>) =>
    Effect.provide(Effect.flatMap(AccountStore.AccountStore, f), layer)
  const runs = numRuns(options)
  return { name, layer, options, withStore, runs }
}

type Suite<E> = ReturnType<typeof suiteOf<E>>

/** Accounts and keys as stored: round trips, listings and revocation. */
const recordLaws = <E>({ withStore, runs }: Suite<E>): void => {
  property(
    "insertAccount and insertKey round-trip: findAccount, findKey and findKeyByHash return exactly what was stored",
    [holdings],
    ([hs]) =>
      withStore((s) =>
        Effect.gen(function*() {
          yield* storeAll(s, hs)
          for (const h of hs) {
            expect(Option.map(yield* s.findAccount(h.account.id), plain)).toStrictEqual(Option.some(h.account))
            for (const key of h.keys) yield* expectKey(s, key)
          }
          expect(yield* s.countAccounts).toBe(hs.length)
        })
      ),
    runs
  )

  property("listKeys returns exactly the keys of that account, and no other account's", [holdings, accountId], ([hs, stranger]) =>
    withStore((s) =>
      Effect.gen(function*() {
        yield* storeAll(s, hs)
        for (const h of hs) {
          const listed = (yield* s.listKeys(h.account.id)).map(plain).sort(byId)
          expect(listed).toStrictEqual([...h.keys].sort(byId))
        }
        if (!hs.some((h) => h.account.id === stranger)) expect(yield* s.listKeys(stranger)).toStrictEqual([])
      })
    ), runs)

  property(
    "revokeKey keeps the earliest revokedAt, whatever the order of the calls, and changes nothing else",
    [single, fc.array(instant, { minLength: 1, maxLength: 5 })],
    ([h, times]) =>
      withStore((s) =>
        Effect.gen(function*() {
          yield* storeAll(s, [h])
          const key = h.keys[0]!
          yield* Effect.forEach(times, (at) => s.revokeKey(key.id, at))
          const earliest = Math.min(...times, ...(key.revokedAt === null ? [] : [key.revokedAt]))
          yield* expectKey(s, { ...key, revokedAt: earliest })
        })
      ),
    runs
  )
}

/** Rotation: the old key shortened and replaced, once, even under concurrent rotations. */
const rotationLaws = <E>({ withStore, runs }: Suite<E>): void => {
  property(
    "rotateKey shortens the old key's expiry (never lengthens it), marks it replaced by the new key and stores the new key; a key is rotated once: again, it fails with KeyAlreadyRotated naming its successor and changes nothing",
    [single, instant, base62(8), fc.array(instant, { maxLength: 3 })],
    ([h, oldExpiresAt, suffix, later]) =>
      withStore((s) =>
        Effect.gen(function*() {
          yield* storeAll(s, [h])
          const old = h.keys[0]!
          const fresh = successor(old, `key_new_${suffix}`)
          const first = yield* Effect.result(s.rotateKey(old.id, oldExpiresAt, fresh))
          const rotated: KeyRecord = old.rotatedTo !== null ? old : {
            ...old,
            expiresAt: old.expiresAt === null ? oldExpiresAt : Math.min(old.expiresAt, oldExpiresAt),
            rotatedTo: fresh.id
          }
          if (old.rotatedTo !== null) {
            expect(Result.isFailure(first) && first.failure).toMatchObject(alreadyRotated(old.id, old.rotatedTo))
            yield* expectAbsent(s, fresh)
          } else {
            expect(Result.isSuccess(first)).toBe(true)
            yield* expectKey(s, fresh)
          }
          yield* expectKey(s, rotated)
          // Rotating the same key again (a retried request, or another operator's) issues nothing.
          for (const [i, at] of later.entries()) {
            const next = successor(old, `${fresh.id}_${i}`)
            const again = yield* Effect.flip(s.rotateKey(old.id, at, next))
            expect(again).toMatchObject(alreadyRotated(old.id, rotated.rotatedTo!))
            yield* expectKey(s, rotated)
            yield* expectAbsent(s, next)
          }
          expect((yield* s.listKeys(h.account.id)).length).toBe(old.rotatedTo === null ? 2 : 1)
        })
      ),
    runs
  )

  property(
    "concurrent rotations of one key: exactly one succeeds, the others fail with KeyAlreadyRotated naming its new key, and only that key is stored",
    [single, fc.integer({ min: 2, max: 6 }), base62(8)],
    ([h, n, suffix]) =>
      withStore((s) =>
        Effect.gen(function*() {
          const old = { ...h.keys[0]!, rotatedTo: null }
          yield* storeAll(s, [{ ...h, keys: [old] }])
          const candidates = Array.from({ length: n }, (_, i) => successor(old, `key_race_${i}_${suffix}`))
          const outcomes = yield* Effect.forEach(
            candidates,
            (fresh, i) => Effect.result(s.rotateKey(old.id, 1_000 + i, fresh)),
            { concurrency: "unbounded" }
          )
          const won = candidates.filter((_, i) => Result.isSuccess(outcomes[i]!))
          expect(won).toHaveLength(1)
          const winner = won[0]!
          for (const outcome of outcomes) {
            if (Result.isFailure(outcome)) {
              expect(outcome.failure).toMatchObject(alreadyRotated(old.id, winner.id))
            }
          }
          expect(Option.map(yield* s.findKey(old.id), (k) => k.rotatedTo)).toStrictEqual(Option.some(winner.id))
          for (const fresh of candidates) {
            if (fresh === winner) yield* expectKey(s, fresh)
            else yield* expectAbsent(s, fresh)
          }
          expect((yield* s.listKeys(h.account.id)).map((k) => k.id).sort()).toStrictEqual([old.id, winner.id].sort())
        })
      ),
    runs
  )
}

/** Unknown ids refused, and no key ever stored in clear. */
const refusalAndSecrecyLaws = <E>({ layer, options, withStore, runs }: Suite<E>): void => {
  property(
    "unknown ids: revokeKey and rotateKey fail with KeyNotFound, insertKey with AccountNotFound, and nothing is stored",
    [single, accountId, base62(8)],
    ([h, stranger, suffix]) =>
      withStore((s) =>
        Effect.gen(function*() {
          yield* storeAll(s, [h])
          const unknownKeyId = `key_unknown_${suffix}`
          const orphan: KeyRecord = { ...h.keys[0]!, id: `key_orphan_${suffix}`, hash: ApiKey.hash(`key_orphan_${suffix}`) }

          const revoked = yield* Effect.flip(s.revokeKey(unknownKeyId, 1))
          expect(revoked._tag).toBe("KeyNotFound")
          const rotated = yield* Effect.flip(s.rotateKey(unknownKeyId, 1, orphan))
          expect(rotated._tag).toBe("KeyNotFound")
          // Atomic: the failed rotation left no new key behind.
          yield* expectAbsent(s, orphan)

          if (stranger !== h.account.id) {
            const inserted = yield* Effect.flip(s.insertKey({ ...orphan, accountId: stranger }))
            expect(inserted._tag).toBe("AccountNotFound")
            expect(Option.isNone(yield* s.findKey(orphan.id))).toBe(true)
            expect(Option.isNone(yield* s.findAccount(stranger))).toBe(true)
          }
          expect(Option.isNone(yield* s.findKey(unknownKeyId))).toBe(true)
          expect(Option.isNone(yield* s.findKeyByHash(ApiKey.hash(unknownKeyId)))).toBe(true)
          expect(yield* s.listKeys(h.account.id)).toHaveLength(1)
          yield* expectKey(s, h.keys[0]!)
        })
      ),
    runs
  )

  property(
    "keys issued through Accounts never appear in any stored record: only their SHA-256 and display prefix are kept",
    [fc.constantFrom<ApiKey.KeyEnvironment>("production", "staging"), fc.integer({ min: 0, max: 3 }), fc.boolean()],
    ([environment, extraKeys, revokeFirst]) =>
      Effect.gen(function*() {
        const accounts = yield* Accounts.Accounts
        const s = yield* AccountStore.AccountStore
        const created = yield* accounts.create({ plan: "enterprise", limits: { perMinute: 10, perDay: 100 } })
        const issued = [created.key]
        for (let i = 0; i < extraKeys; i++) issued.push(yield* accounts.issueKey(created.account.id))
        if (revokeFirst) yield* accounts.revoke(created.key.id)
        else issued.push(yield* accounts.rotate(created.key.id, { graceSeconds: 60 }))

        const records: Array<unknown> = [yield* s.findAccount(created.account.id), yield* s.listKeys(created.account.id)]
        for (const k of issued) {
          const key = Redacted.value(k.key)
          const byHash = yield* s.findKeyByHash(ApiKey.hash(key))
          expect(Option.map(byHash, (r) => [r.id, r.hash, r.prefix])).toStrictEqual(
            Option.some([k.id, ApiKey.hash(key), ApiKey.displayPrefix(key)])
          )
          records.push(byHash, yield* s.findKey(k.id))
        }
        const stored = stringsIn(records)
        for (const k of issued) {
          expect(stored).toContain(ApiKey.hash(Redacted.value(k.key))) // the scan does see the records
          // The secret part of the key, without its public `psk_live_`/`psk_test_` prefix.
          const secret = Redacted.value(k.key).slice(ApiKey.KEY_PREFIX[environment].length)
          expect(stored.filter((field) => field.includes(secret))).toStrictEqual([])
        }
      }).pipe(
        Effect.provide(
          Accounts.Accounts.layer({ environment }).pipe(
            Layer.provideMerge(layer),
            Layer.provide(SecureRandom.SecureRandom.Live)
          )
        )
      ),
    numRuns(options, 20)
  )
}

/**
 * Registers the laws of `AccountStore` for the implementation `layer` provides. The last law runs the
 * `Accounts` service on top of it.
 *
 * @category law suites
 * @since 1.0.0
 */
export const accountStoreLaws = <E>(
  name: string,
  layer: Layer.Layer<AccountStore.AccountStore, E>,
  options?: LawSuiteOptions
): void => {
  const suite = suiteOf(name, layer, options)
  describe(`AccountStore laws: ${name}`, () => {
    recordLaws(suite)
    rotationLaws(suite)
    refusalAndSecrecyLaws(suite)
    accountListingLaws(layer, options)
  })
}
