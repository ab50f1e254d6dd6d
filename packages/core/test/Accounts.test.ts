import { TestClock } from "effect/testing"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Layer, Option, Redacted } from "effect"
import { Accounts, keyState } from "../src/Accounts.js"
import { AccountStore, type KeyRecord, makeMemory } from "../src/AccountStore.js"
import { SecureRandom } from "../src/SecureRandom.js"

const T = Date.parse("2030-01-01T00:00:00Z")
const layer = (environment: "production" | "staging" = "production") =>
  Accounts.layer({ environment }).pipe(Layer.provideMerge(AccountStore.layerMemory), Layer.provide(SecureRandom.seeded(42)))

const record = (over: Partial<KeyRecord>): KeyRecord => ({
  id: "k",
  accountId: "a",
  hash: "h",
  prefix: "p",
  createdAt: 0,
  expiresAt: null,
  revokedAt: null,
  rotatedTo: null,
  ...over
})

describe("Accounts", () => {
  it("keyState: revoked once a revocation is recorded (whatever the reader's clock says), expired from expiresAt on, active before", () => {
    expect(keyState(record({}), 10)).toBe("active")
    // A reader whose clock is behind the revoker's still refuses the key.
    expect(keyState(record({ revokedAt: 10 }), 9)).toBe("revoked")
    expect(keyState(record({ revokedAt: 10 }), 10)).toBe("revoked")
    expect(keyState(record({ expiresAt: 10 }), 9)).toBe("active")
    expect(keyState(record({ expiresAt: 10 }), 10)).toBe("expired")
    expect(keyState(record({ expiresAt: 5, revokedAt: 8 }), 9)).toBe("revoked")
    expect(keyState(record({ expiresAt: 5, revokedAt: 8 }), 6)).toBe("revoked")
  })

  it.effect("create: an account with its plan's limits and a first key that verifies to it", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T)
      const accounts = yield* Accounts
      const { account, key } = yield* accounts.create({ plan: "pro" })
      expect(account).toMatchObject({ plan: "pro", limits: { perMinute: 300, perDay: 10_000 }, createdAt: T })
      expect(account.id).toMatch(/^acc_[0-9A-Za-z]{22}$/)
      expect(key.id).toMatch(/^key_[0-9A-Za-z]{22}$/)
      expect(key).toMatchObject({ accountId: account.id, expiresAt: null })
      expect(Redacted.value(key.key)).toMatch(/^psk_live_/)
      expect(key.prefix).toBe(Redacted.value(key.key).slice(0, 13))
      expect(yield* accounts.verify(Redacted.value(key.key))).toEqual(
        Option.some({ accountId: account.id, keyId: key.id, limits: { perMinute: 300, perDay: 10_000 }, suspended: false })
      )
      expect(yield* accounts.countAccounts).toBe(1)
      expect(yield* accounts.findAccount(account.id)).toEqual(account)
      const missing = yield* Effect.result(accounts.findAccount("acc_nope"))
      expect(Result.isFailure(missing) && missing.failure).toMatchObject({ _tag: "AccountNotFound", id: "acc_nope" })
    }).pipe(Effect.provide(layer())))

  it.effect("staging keys are psk_test_; enterprise needs limits; bad plans fail with InvalidPlan", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account, key } = yield* accounts.create({ plan: "enterprise", limits: { perMinute: 7, perDay: 9 } })
      expect(Redacted.value(key.key)).toMatch(/^psk_test_/)
      expect(account.limits).toEqual({ perMinute: 7, perDay: 9 })
      const bad = yield* Effect.result(accounts.create({ plan: "enterprise" }))
      expect(Result.isFailure(bad) && bad.failure._tag).toBe("InvalidPlan")
      expect(yield* accounts.countAccounts).toBe(1)
    }).pipe(Effect.provide(layer("staging"))))

  it.effect("verify refuses malformed, unknown, revoked and expired keys", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T)
      const accounts = yield* Accounts
      const { account, key } = yield* accounts.create({ plan: "free" })
      expect(yield* accounts.verify("nope")).toEqual(Option.none())
      expect(yield* accounts.verify("psk_live_" + "a".repeat(32))).toEqual(Option.none())
      const expiring = yield* accounts.issueKey(account.id, { expiresAt: T + 1_000 })
      expect(expiring.expiresAt).toBe(T + 1_000)
      expect(Option.isSome(yield* accounts.verify(Redacted.value(expiring.key)))).toBe(true)
      yield* TestClock.adjust("999 millis")
      expect(Option.isSome(yield* accounts.verify(Redacted.value(expiring.key)))).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(yield* accounts.verify(Redacted.value(expiring.key))).toEqual(Option.none())
      yield* accounts.revoke(key.id)
      expect(yield* accounts.verify(Redacted.value(key.key))).toEqual(Option.none())
      const unknown = yield* Effect.result(accounts.revoke("key_nope"))
      expect(Result.isFailure(unknown) && unknown.failure).toMatchObject({ _tag: "KeyNotFound", id: "key_nope" })
      const noAccount = yield* Effect.result(accounts.issueKey("acc_nope"))
      expect(Result.isFailure(noAccount) && noAccount.failure._tag).toBe("AccountNotFound")
    }).pipe(Effect.provide(layer())))

  it.effect("listKeys shows each key's state and metadata, never the key", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T)
      const accounts = yield* Accounts
      const { account, key } = yield* accounts.create({ plan: "free" })
      const second = yield* accounts.issueKey(account.id)
      const third = yield* accounts.issueKey(account.id, { expiresAt: T + 10 })
      yield* accounts.revoke(second.id)
      yield* TestClock.adjust("10 millis")
      const listed = yield* accounts.listKeys(account.id)
      const byId = new Map(listed.map((k) => [k.id, k]))
      expect(byId.get(key.id)).toEqual({
        id: key.id,
        accountId: account.id,
        prefix: key.prefix,
        createdAt: T,
        expiresAt: null,
        revokedAt: null,
        rotatedTo: null,
        state: "active"
      })
      expect(byId.get(second.id)).toMatchObject({ state: "revoked", revokedAt: T })
      expect(byId.get(third.id)).toMatchObject({ state: "expired", expiresAt: T + 10 })
      expect(JSON.stringify(listed)).not.toContain(Redacted.value(key.key))
      const missing = yield* Effect.result(accounts.listKeys("acc_nope"))
      expect(Result.isFailure(missing) && missing.failure._tag).toBe("AccountNotFound")
    }).pipe(Effect.provide(layer())))

  it.effect("rotate: a new key at once; the old one works for the grace period, then is refused", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T)
      const accounts = yield* Accounts
      const { account, key } = yield* accounts.create({ plan: "free" })
      const next = yield* accounts.rotate(key.id, { graceSeconds: 2 })
      expect(next.accountId).toBe(account.id)
      expect(next.expiresAt).toBeNull()
      expect(Option.isSome(yield* accounts.verify(Redacted.value(next.key)))).toBe(true)
      yield* TestClock.adjust("1999 millis")
      expect(Option.isSome(yield* accounts.verify(Redacted.value(key.key)))).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(yield* accounts.verify(Redacted.value(key.key))).toEqual(Option.none())
      // A rotated key is not rotated again: the answer names its successor.
      const again = yield* Effect.result(accounts.rotate(key.id))
      expect(Result.isFailure(again) && again.failure).toMatchObject({ _tag: "KeyAlreadyRotated", id: key.id, successorId: next.id })
      // Default grace 0: refused at once; a negative grace counts as 0.
      const third = yield* accounts.rotate(next.id)
      expect(yield* accounts.verify(Redacted.value(next.key))).toEqual(Option.none())
      const fourth = yield* accounts.rotate(third.id, { graceSeconds: -5 })
      expect(yield* accounts.verify(Redacted.value(third.key))).toEqual(Option.none())
      expect(Option.isSome(yield* accounts.verify(Redacted.value(fourth.key)))).toBe(true)
      const unknown = yield* Effect.result(accounts.rotate("key_nope"))
      expect(Result.isFailure(unknown) && unknown.failure).toMatchObject({ _tag: "KeyNotFound", id: "key_nope" })
    }).pipe(Effect.provide(layer())))

  it.effect("rotate: a key with a successor is refused naming it, whatever its state; a revoked or expired key never rotated is not found", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T)
      const accounts = yield* Accounts
      const { account, key } = yield* accounts.create({ plan: "free" })
      const next = yield* accounts.rotate(key.id, { graceSeconds: 60 })
      yield* accounts.revoke(key.id)
      const revoked = yield* accounts.issueKey(account.id)
      yield* accounts.revoke(revoked.id)
      const expiring = yield* accounts.issueKey(account.id, { expiresAt: T + 5 })
      yield* TestClock.adjust("5 millis")
      const failure = (id: string) => Effect.map(Effect.result(accounts.rotate(id)), (r) => Result.isFailure(r) && r.failure)
      expect(yield* failure(key.id)).toMatchObject({ _tag: "KeyAlreadyRotated", id: key.id, successorId: next.id })
      expect(yield* failure(revoked.id)).toMatchObject({ _tag: "KeyNotFound", id: revoked.id })
      expect(yield* failure(expiring.id)).toMatchObject({ _tag: "KeyNotFound", id: expiring.id })
      const listed = yield* accounts.listKeys(account.id)
      expect(listed.map((k) => [k.id, k.rotatedTo])).toStrictEqual([
        [key.id, next.id],
        [next.id, null],
        [revoked.id, null],
        [expiring.id, null]
      ])
    }).pipe(Effect.provide(layer())))

  it.effect("issueKey: an expiry at or before the Clock's time fails with InvalidExpiry and stores nothing; a later one is kept", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T)
      const accounts = yield* Accounts
      const { account } = yield* accounts.create({ plan: "free" })
      for (const expiresAt of [T - 60_000, T - 1, T]) {
        const refused = yield* Effect.result(accounts.issueKey(account.id, { expiresAt }))
        expect(Result.isFailure(refused) && refused.failure).toMatchObject({ _tag: "InvalidExpiry", expiresAt, now: T })
      }
      expect(yield* accounts.listKeys(account.id)).toHaveLength(1)
      const soon = yield* accounts.issueKey(account.id, { expiresAt: T + 1 })
      expect(soon.expiresAt).toBe(T + 1)
      const never = yield* accounts.issueKey(account.id, {})
      expect(never.expiresAt).toBeNull()
      const expiries = (yield* accounts.listKeys(account.id)).map((k) => k.expiresAt)
      expect(expiries.filter((e) => e === null)).toHaveLength(2)
      expect(expiries.filter((e) => e !== null)).toEqual([T + 1])
    }).pipe(Effect.provide(layer())))

  it.effect("verify looks up no stored key for a token that is not shaped like one", () =>
    Effect.gen(function*() {
      const store = makeMemory()
      const looked: Array<string> = []
      const counting = AccountStore.of({
        ...store,
        findKeyByHash: (hash) => Effect.suspend(() => (looked.push(hash), store.findKeyByHash(hash)))
      })
      const accounts = yield* Accounts.pipe(
        Effect.provide(Accounts.layer({ environment: "production" })),
        Effect.provideService(AccountStore, counting),
        Effect.provide(SecureRandom.seeded(7))
      )
      const { key } = yield* accounts.create({ plan: "free" })
      const good = Redacted.value(key.key)
      for (const token of ["", "nope", good.slice(0, -1), good + "a", good.replace("psk_live_", "psk_beta_"), `${good.slice(0, -1)}-`]) {
        expect(yield* accounts.verify(token)).toEqual(Option.none())
      }
      expect(looked).toEqual([])
      expect(Option.isSome(yield* accounts.verify(good))).toBe(true)
      expect(looked).toHaveLength(1)
    }))
})
