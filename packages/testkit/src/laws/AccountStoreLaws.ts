/**
 * Laws every `AccountStore` implementation obeys.
 *
 * @since 1.0.0
 */
import { describe, expect } from "@effect/vitest"
import { Arbitrary, Effect, FastCheck as fc, Layer, Option, Redacted } from "effect"
import { Accounts, AccountStore, ApiKey, Plan, SecureRandom } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { base62, byId, instant, numRuns, plain, property, stringsIn } from "./internal/support.js"

type Store = AccountStore.AccountStore["Type"]
type Account = AccountStore.Account
type KeyRecord = AccountStore.KeyRecord

const accountId = base62(22).map((s) => `acc_${s}`)
const nullableInstant = fc.option(instant, { nil: null })

const account = (id: string): fc.Arbitrary<Account> =>
  fc.record({
    id: fc.constant(id),
    plan: Arbitrary.make(Plan.Plan),
    limits: Arbitrary.make(Plan.PlanLimits),
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
    revokedAt: nullableInstant
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
    Effect.zipRight(store.insertAccount(account, first!), Effect.forEach(rest, (k) => store.insertKey(k))), { discard: true })

const expectKey = (store: Store, key: KeyRecord) =>
  Effect.gen(function*() {
    expect(Option.map(yield* store.findKey(key.id), plain)).toStrictEqual(Option.some(key))
    expect(Option.map(yield* store.findKeyByHash(key.hash), plain)).toStrictEqual(Option.some(key))
  })

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
  const withStore = <A, E2>(f: (store: Store) => Effect.Effect<A, E2>) =>
    Effect.provide(Effect.flatMap(AccountStore.AccountStore, f), layer)
  const runs = numRuns(options)

  describe(`AccountStore laws: ${name}`, () => {
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

    property(
      "rotateKey shortens the old key's expiry (never lengthens it) and stores the new key",
      [single, instant, base62(8), fc.array(instant, { maxLength: 3 })],
      ([h, oldExpiresAt, suffix, later]) =>
        withStore((s) =>
          Effect.gen(function*() {
            yield* storeAll(s, [h])
            const old = h.keys[0]!
            const fresh: KeyRecord = {
              ...old,
              id: `key_new_${suffix}`,
              hash: ApiKey.hash(`key_new_${suffix}`),
              expiresAt: null,
              revokedAt: null
            }
            yield* s.rotateKey(old.id, oldExpiresAt, fresh)
            let expiresAt = old.expiresAt === null ? oldExpiresAt : Math.min(old.expiresAt, oldExpiresAt)
            yield* expectKey(s, { ...old, expiresAt })
            yield* expectKey(s, fresh)
            // Rotating the same key again (a retried request) can only shorten its life further.
            for (const [i, at] of later.entries()) {
              const next: KeyRecord = { ...fresh, id: `${fresh.id}_${i}`, hash: ApiKey.hash(`${fresh.id}_${i}`) }
              yield* s.rotateKey(old.id, at, next)
              expiresAt = Math.min(expiresAt, at)
              yield* expectKey(s, { ...old, expiresAt })
              yield* expectKey(s, next)
            }
            expect((yield* s.listKeys(h.account.id)).length).toBe(2 + later.length)
          })
        ),
      runs
    )

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
            expect(Option.isNone(yield* s.findKey(orphan.id))).toBe(true)
            expect(Option.isNone(yield* s.findKeyByHash(orphan.hash))).toBe(true)

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
  })
}
