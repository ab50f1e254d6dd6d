import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Option } from "effect"
import { type Account, AccountStore, type KeyRecord, makeMemory } from "../src/AccountStore.js"

const account: Account = { id: "acc_1", name: null, plan: "free", limits: { perMinute: 60, perDay: 1000 }, status: "active", createdAt: 1 }
const key = (id: string, accountId = "acc_1"): KeyRecord => ({
  id,
  accountId,
  hash: `hash-${id}`,
  prefix: "psk_live_abcd",
  createdAt: 1,
  expiresAt: null,
  revokedAt: null,
  rotatedTo: null
})

describe("AccountStore (memory)", () => {
  it.effect("insertAccount stores the account and its first key; find by id and by hash; count", () =>
    Effect.gen(function*() {
      const store = yield* AccountStore
      expect(yield* store.countAccounts).toBe(0)
      yield* store.insertAccount(account, key("k1"))
      expect(yield* store.countAccounts).toBe(1)
      expect(yield* store.findAccount("acc_1")).toEqual(Option.some(account))
      expect(yield* store.findAccount("acc_2")).toEqual(Option.none())
      expect(yield* store.findKey("k1")).toEqual(Option.some(key("k1")))
      expect(yield* store.findKeyByHash("hash-k1")).toEqual(Option.some(key("k1")))
      expect(yield* store.findKeyByHash("nope")).toEqual(Option.none())
    }).pipe(Effect.provide(AccountStore.layerMemory)))

  it.effect("insertKey needs the account; listKeys lists only that account's keys", () =>
    Effect.gen(function*() {
      const store = makeMemory()
      yield* store.insertAccount(account, key("k1"))
      yield* store.insertAccount({ ...account, id: "acc_2" }, key("k9", "acc_2"))
      yield* store.insertKey(key("k2"))
      const orphan = yield* Effect.result(store.insertKey(key("k3", "acc_x")))
      expect(Result.isFailure(orphan) && orphan.failure).toMatchObject({ _tag: "AccountNotFound", id: "acc_x" })
      expect((yield* store.listKeys("acc_1")).map((k) => k.id).sort()).toEqual(["k1", "k2"])
      expect(yield* store.findKey("k3")).toEqual(Option.none())
    }))

  it.effect("revokeKey keeps the earliest revocation, by id and by hash; unknown ids fail", () =>
    Effect.gen(function*() {
      const store = makeMemory()
      yield* store.insertAccount(account, key("k1"))
      yield* store.revokeKey("k1", 50)
      yield* store.revokeKey("k1", 70)
      expect(Option.map(yield* store.findKey("k1"), (k) => k.revokedAt)).toEqual(Option.some(50))
      yield* store.revokeKey("k1", 30)
      expect(Option.map(yield* store.findKeyByHash("hash-k1"), (k) => k.revokedAt)).toEqual(Option.some(30))
      const missing = yield* Effect.result(store.revokeKey("k0", 1))
      expect(Result.isFailure(missing) && missing.failure).toMatchObject({ _tag: "KeyNotFound", id: "k0" })
    }))

  it.effect("rotateKey shortens the old key's life (never lengthens it), marks its successor and stores the new key, once", () =>
    Effect.gen(function*() {
      const store = makeMemory()
      yield* store.insertAccount(account, { ...key("k1"), expiresAt: 150 })
      yield* store.insertKey(key("k9"))
      yield* store.rotateKey("k1", 200, key("k2"))
      expect(yield* store.findKey("k1")).toEqual(Option.some({ ...key("k1"), expiresAt: 150, rotatedTo: "k2" }))
      expect(Option.map(yield* store.findKeyByHash("hash-k1"), (k) => k.rotatedTo)).toEqual(Option.some("k2"))
      expect(Option.isSome(yield* store.findKey("k2"))).toBe(true)
      yield* store.rotateKey("k9", 40, key("k4"))
      expect(Option.map(yield* store.findKey("k9"), (k) => k.expiresAt)).toEqual(Option.some(40))
      const again = yield* Effect.result(store.rotateKey("k1", 10, key("k3")))
      expect(Result.isFailure(again) && again.failure).toMatchObject({ _tag: "KeyAlreadyRotated", id: "k1", successorId: "k2" })
      expect(Option.map(yield* store.findKey("k1"), (k) => k.expiresAt)).toEqual(Option.some(150))
      expect(yield* store.findKey("k3")).toEqual(Option.none())
      const missing = yield* Effect.result(store.rotateKey("k0", 1, key("k5")))
      expect(Result.isFailure(missing) && missing.failure).toMatchObject({ _tag: "KeyNotFound", id: "k0" })
      expect(yield* store.findKey("k5")).toEqual(Option.none())
    }))
})
