/**
 * Laws of the `Accounts` service (key verification, revocation, expiry, rotation) over any
 * `AccountStore`, with the `TestClock`.
 *
 * @since 1.0.0
 */
import { fromSchema } from "../arbitraries/FromSchema.js"
import * as fc from "fast-check"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Layer, Option, Redacted } from "effect"
import { Accounts, AccountStore, ApiKey, Plan, SecureRandom } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { base62, numRuns, property, stringsIn } from "./internal/support.js"

type Service = Accounts.Accounts["Service"]

const START = 1_800_000_000_000

const environment = fc.constantFrom<ApiKey.KeyEnvironment>("production", "staging")

const planInput: fc.Arbitrary<{ readonly plan: Plan.Plan; readonly limits?: Plan.PlanLimits }> = fc.oneof(
  fc.record({ plan: fc.constantFrom<Plan.Plan>("free", "pro", "business") }),
  fc.record({ plan: fc.constant<Plan.Plan>("enterprise"), limits: fromSchema(Plan.PlanLimits) })
)

interface NearMiss {
  readonly kind: "replace" | "insert" | "remove" | "wrap" | "case" | "any"
  readonly at: number
  readonly text: string
}

/** Ways to miss a key: one edit of an issued key (which may still be well-formed), or any text. */
const nearMiss: fc.Arbitrary<NearMiss> = fc.oneof(
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), text: fc.string({ minLength: 1, maxLength: 1 }) }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), text: fc.string({ minLength: 1, maxLength: 1 }) }),
  fc.record({ kind: fc.constant("remove" as const), at: fc.nat(), text: fc.constant("") }),
  fc.record({ kind: fc.constant("wrap" as const), at: fc.constant(0), text: fc.constantFrom("Bearer ", " ", "\"", "\n") }),
  fc.record({ kind: fc.constant("case" as const), at: fc.constant(0), text: fc.constant("") }),
  fc.record({ kind: fc.constant("any" as const), at: fc.constant(0), text: fc.string({ maxLength: 60 }) })
)
const miss = (key: string, edit: NearMiss): string => {
  const at = edit.at % key.length
  switch (edit.kind) {
    case "replace":
      return key.slice(0, at) + edit.text + key.slice(at + 1)
    case "insert":
      return key.slice(0, at) + edit.text + key.slice(at)
    case "remove":
      return key.slice(0, at) + key.slice(at + 1)
    case "wrap":
      return edit.text + key
    case "case":
      return key.toUpperCase()
    case "any":
      return edit.text
  }
}

/** Whether `token` is accepted at the Clock's time. */
const accepts = (accounts: Service, token: string) => Effect.map(accounts.verify(token), Option.isSome)

/** What the laws of this suite share: its parameters and the helpers over its layer. */
const suiteOf = <E>(
  name: string,
  layer: Layer.Layer<AccountStore.AccountStore, E>,
  options?: LawSuiteOptions
) => {
  const withAccounts = <A, E2>(env: ApiKey.KeyEnvironment, f: (accounts: Service) => Effect.Effect<A, E2>) =>
    TestClock.setTime(START).pipe(
      Effect.andThen(Effect.flatMap(Accounts.Accounts, f)),
      Effect.provide(
        Accounts.Accounts.layer({ environment: env }).pipe(Layer.provide(layer), Layer.provide(SecureRandom.SecureRandom.Live))
      )
    )
  // Each run moves the TestClock, which waits for the runtime to settle: fewer runs keep the suite quick.
  const runs = numRuns(options, 25)
  return { name, layer, options, withAccounts, runs }
}

type Suite<E> = ReturnType<typeof suiteOf<E>>

/** Verification: issued keys accepted, anything else refused. */
const verificationLaws = <E>({ withAccounts, runs }: Suite<E>): void => {
  property(
    "verify accepts every key issued by create, issueKey and rotate, naming its account, key and limits",
    [environment, planInput, fc.integer({ min: 0, max: 3 })],
    ([env, input, extra]) =>
      withAccounts(env, (accounts) =>
        Effect.gen(function*() {
          const { account, key } = yield* accounts.create(input)
          const issued = [key]
          for (let i = 0; i < extra; i++) issued.push(yield* accounts.issueKey(account.id))
          issued.push(yield* accounts.rotate(key.id, { graceSeconds: 60 }))
          for (const k of issued) {
            const token = Redacted.value(k.key)
            expect(token.startsWith(ApiKey.KEY_PREFIX[env])).toBe(true)
            expect(ApiKey.isWellFormed(token)).toBe(true)
            expect(k.prefix).toBe(ApiKey.displayPrefix(token))
            expect(yield* accounts.verify(token)).toStrictEqual(
              Option.some({ accountId: account.id, keyId: k.id, limits: account.limits, suspended: false })
            )
          }
          expect(new Set(issued.map((k) => Redacted.value(k.key))).size).toBe(issued.length)
        })
      ),
    runs
  )

  property(
    "verify refuses a well-formed key that was never issued",
    [environment, fc.constantFrom(...Object.values(ApiKey.KEY_PREFIX)), base62(32)],
    ([env, prefix, secret]) =>
      withAccounts(env, (accounts) =>
        Effect.gen(function*() {
          yield* accounts.create({ plan: "free" })
          expect(yield* accepts(accounts, prefix + secret)).toBe(false)
        })
      ),
    runs
  )

  property("verify refuses malformed tokens and near-misses of an issued key", [environment, nearMiss], ([env, edit]) =>
    withAccounts(env, (accounts) =>
      Effect.gen(function*() {
        const { key } = yield* accounts.create({ plan: "free" })
        const token = Redacted.value(key.key)
        const missed = miss(token, edit)
        if (missed === token) return
        expect(yield* accepts(accounts, missed)).toBe(false)
        expect(yield* accepts(accounts, token)).toBe(true)
      })
    ), runs)
}

/** A key's lifetime: revoked, expired, rotated with grace, an expiry in the past refused. */
const lifetimeLaws = <E>({ withAccounts, runs }: Suite<E>): void => {
  property(
    "revoke is effective at once: the key is refused at the same instant, and the account's other keys still work",
    [environment, fc.integer({ min: 1, max: 3 }), fc.nat()],
    ([env, count, pick]) =>
      withAccounts(env, (accounts) =>
        Effect.gen(function*() {
          const { account, key } = yield* accounts.create({ plan: "pro" })
          const keys = [key]
          for (let i = 1; i < count; i++) keys.push(yield* accounts.issueKey(account.id))
          const revoked = keys[pick % count]!
          yield* accounts.revoke(revoked.id)
          for (const k of keys) expect(yield* accepts(accounts, Redacted.value(k.key))).toBe(k !== revoked)
          // Revoking again changes nothing.
          yield* accounts.revoke(revoked.id)
          expect(yield* accepts(accounts, Redacted.value(revoked.key))).toBe(false)
        })
      ),
    runs
  )

  property(
    "a key with an expiry works until that instant and is refused from it on",
    [environment, fc.integer({ min: 1, max: 30 * 86_400_000 })],
    ([env, ttl]) =>
      withAccounts(env, (accounts) =>
        Effect.gen(function*() {
          const { account } = yield* accounts.create({ plan: "free" })
          const key = yield* accounts.issueKey(account.id, { expiresAt: START + ttl })
          const token = Redacted.value(key.key)
          expect(yield* accepts(accounts, token)).toBe(true)
          yield* TestClock.adjust(ttl - 1)
          expect(yield* accepts(accounts, token)).toBe(true)
          yield* TestClock.adjust(1)
          expect(yield* accepts(accounts, token)).toBe(false)
        })
      ),
    runs
  )

  property(
    "rotate with grace: the new key works at once; the old one works until the grace ends, then is refused",
    [environment, fc.integer({ min: 0, max: 86_400 })],
    ([env, graceSeconds]) =>
      withAccounts(env, (accounts) =>
        Effect.gen(function*() {
          const { key } = yield* accounts.create({ plan: "business" })
          const old = Redacted.value(key.key)
          const fresh = yield* accounts.rotate(key.id, { graceSeconds })
          const now = Redacted.value(fresh.key)
          expect(yield* accepts(accounts, now)).toBe(true)
          if (graceSeconds > 0) {
            expect(yield* accepts(accounts, old)).toBe(true)
            yield* TestClock.adjust(graceSeconds * 1000 - 1)
            expect(yield* accepts(accounts, old)).toBe(true)
            yield* TestClock.adjust(1)
          }
          expect(yield* accepts(accounts, old)).toBe(false)
          expect(yield* accepts(accounts, now)).toBe(true)
        })
      ),
    runs
  )

  property(
    "issueKey refuses an expiry that is not after now (InvalidExpiry) and issues nothing",
    [fc.integer({ min: 0, max: 10 * 365 * 86_400_000 })],
    ([ago]) =>
      withAccounts("production", (accounts) =>
        Effect.gen(function*() {
          const { account } = yield* accounts.create({ plan: "free" })
          const now = yield* Clock.currentTimeMillis
          expect(yield* Effect.flip(accounts.issueKey(account.id, { expiresAt: now - ago }))).toMatchObject({
            _tag: "InvalidExpiry",
            expiresAt: now - ago,
            now
          })
          expect(yield* accounts.listKeys(account.id)).toHaveLength(1)
        })
      ),
    runs
  )
}

/** Rotation once only, what cannot be rotated or revoked, and the key listing. */
const rotationAndListingLaws = <E>({ withAccounts, runs }: Suite<E>): void => {
  property(
    "a key is rotated once: rotating it again, during its grace or after, fails with KeyAlreadyRotated naming its successor, issues nothing and changes neither key; the successor can be rotated in turn",
    [environment, fc.integer({ min: 0, max: 86_400 }), fc.integer({ min: 0, max: 86_400 }), fc.array(fc.integer({ min: 0, max: 2 * 86_400_000 }), { minLength: 1, maxLength: 3 })],
    ([env, graceSeconds, secondGrace, waits]) =>
      withAccounts(env, (accounts) =>
        Effect.gen(function*() {
          const { account, key } = yield* accounts.create({ plan: "pro" })
          const fresh = yield* accounts.rotate(key.id, { graceSeconds })
          const before = yield* accounts.listKeys(account.id)
          expect(before.find((k) => k.id === key.id)?.rotatedTo).toBe(fresh.id)
          expect(before.find((k) => k.id === fresh.id)?.rotatedTo).toBeNull()
          for (const wait of waits) {
            yield* TestClock.adjust(wait)
            const now = yield* Clock.currentTimeMillis
            const oldWorks = now < START + graceSeconds * 1000
            expect(yield* accepts(accounts, Redacted.value(key.key))).toBe(oldWorks)
            expect(yield* Effect.flip(accounts.rotate(key.id, { graceSeconds: secondGrace }))).toMatchObject({
              _tag: "KeyAlreadyRotated",
              id: key.id,
              successorId: fresh.id
            })
            // Nothing issued, nothing changed: the old key keeps exactly the grace it was given.
            expect(yield* accounts.listKeys(account.id)).toStrictEqual(
              before.map((k) => ({ ...k, state: k.id === key.id && !oldWorks ? "expired" : "active" }))
            )
            expect(yield* accepts(accounts, Redacted.value(key.key))).toBe(oldWorks)
            expect(yield* accepts(accounts, Redacted.value(fresh.key))).toBe(true)
          }
          const third = yield* accounts.rotate(fresh.id)
          expect(yield* accepts(accounts, Redacted.value(third.key))).toBe(true)
          expect(yield* accepts(accounts, Redacted.value(fresh.key))).toBe(false)
          expect(yield* Effect.flip(accounts.rotate(fresh.id))).toMatchObject({ _tag: "KeyAlreadyRotated", successorId: third.id })
        })
      ),
    runs
  )

  it.effect("rotate without grace refuses the old key at once", () =>
    withAccounts("production", (accounts) =>
      Effect.gen(function*() {
        const { key } = yield* accounts.create({ plan: "free" })
        const fresh = yield* accounts.rotate(key.id)
        expect(yield* accepts(accounts, Redacted.value(key.key))).toBe(false)
        expect(yield* accepts(accounts, Redacted.value(fresh.key))).toBe(true)
      })
    ))

  it.effect(
    "unknown, revoked or expired keys cannot be rotated (KeyNotFound); unknown keys cannot be revoked; unknown accounts get AccountNotFound",
    () =>
      withAccounts("production", (accounts) =>
        Effect.gen(function*() {
          const { account, key } = yield* accounts.create({ plan: "free" })
          const expiring = yield* accounts.issueKey(account.id, { expiresAt: START + 1_000 })
          yield* accounts.revoke(key.id)
          yield* TestClock.adjust(1_000)
          for (const id of [key.id, expiring.id, "key_unknown"]) {
            expect(yield* Effect.flip(accounts.rotate(id))).toMatchObject({ _tag: "KeyNotFound", id })
          }
          expect(yield* Effect.flip(accounts.revoke("key_unknown"))).toMatchObject({ _tag: "KeyNotFound" })
          expect(yield* Effect.flip(accounts.issueKey("acc_unknown"))).toMatchObject({ _tag: "AccountNotFound" })
          expect(yield* Effect.flip(accounts.listKeys("acc_unknown"))).toMatchObject({ _tag: "AccountNotFound" })
          expect(yield* Effect.flip(accounts.findAccount("acc_unknown"))).toMatchObject({ _tag: "AccountNotFound" })
        })
      )
  )

  property(
    "listKeys shows metadata only (never a key or its hash) and each key's state",
    [environment, fc.array(fc.constantFrom("active", "revoked", "expired"), { minLength: 0, maxLength: 4 })],
    ([env, fates]) =>
      withAccounts(env, (accounts) =>
        Effect.gen(function*() {
          const { account, key } = yield* accounts.create({ plan: "free" })
          const expected = new Map<string, string>([[key.id, "active"]])
          const issued = [key]
          for (const fate of fates) {
            const k = yield* accounts.issueKey(account.id, fate === "expired" ? { expiresAt: START + 1 } : {})
            if (fate === "revoked") yield* accounts.revoke(k.id)
            expected.set(k.id, fate)
            issued.push(k)
          }
          yield* TestClock.adjust(1)
          const listed = yield* accounts.listKeys(account.id)
          expect(new Map(listed.map((k) => [k.id, k.state]))).toStrictEqual(expected)
          for (const k of listed) {
            expect(Object.keys(k).sort()).toStrictEqual(
              ["accountId", "createdAt", "expiresAt", "id", "prefix", "revokedAt", "rotatedTo", "state"]
            )
          }
          const shown = stringsIn(listed)
          for (const k of issued) {
            const token = Redacted.value(k.key)
            const secret = token.slice(ApiKey.KEY_PREFIX[env].length)
            expect(shown.filter((s) => s.includes(secret) || s.includes(ApiKey.hash(token)))).toStrictEqual([])
          }
        })
      ),
    runs
  )
}

/**
 * Registers the laws of the `Accounts` service running on the `AccountStore` that `layer` provides.
 * Time is the `TestClock`; randomness is the operating system's, as real keys need.
 *
 * @category law suites
 * @since 1.0.0
 */
export const accountsServiceLaws = <E>(
  name: string,
  layer: Layer.Layer<AccountStore.AccountStore, E>,
  options?: LawSuiteOptions
): void => {
  const suite = suiteOf(name, layer, options)
  describe(`Accounts service laws: ${name}`, () => {
    verificationLaws(suite)
    lifetimeLaws(suite)
    rotationAndListingLaws(suite)
  })
}
