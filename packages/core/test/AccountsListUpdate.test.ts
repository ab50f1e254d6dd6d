import { TestClock } from "effect/testing"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Result } from "effect"
import { Accounts } from "../src/Accounts.js"
import { AccountStore } from "../src/AccountStore.js"
import { SecureRandom } from "../src/SecureRandom.js"

const layer = Accounts.layer({ environment: "production" }).pipe(
  Layer.provideMerge(AccountStore.layerMemory),
  Layer.provide(SecureRandom.seeded(7))
)

describe("Accounts: list and update", () => {
  it.effect("pages newest first, each account once, with a cursor bound to its filters", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const ids: Array<string> = []
      for (const plan of ["free", "pro", "free", "pro", "free"] as const) {
        ids.push((yield* accounts.create({ plan })).account.id)
        yield* TestClock.adjust(1_000)
      }
      const first = yield* accounts.list({ limit: 2 })
      expect(first.accounts.map((a) => a.id)).toEqual([ids[4], ids[3]])
      expect(first.next).toBeDefined()
      const second = yield* accounts.list({ limit: 2, cursor: first.next })
      expect(second.accounts.map((a) => a.id)).toEqual([ids[2], ids[1]])
      const third = yield* accounts.list({ limit: 2, cursor: second.next })
      expect(third.accounts.map((a) => a.id)).toEqual([ids[0]])
      expect(third.next).toBeUndefined()
      const exact = yield* accounts.list({ limit: 5 })
      expect(exact.accounts).toHaveLength(5)
      expect(exact.next).toBeUndefined()
      const free = yield* accounts.list({ limit: 2, plan: "free" })
      expect(free.accounts.map((a) => a.id)).toEqual([ids[4], ids[2]])
      const freeRest = yield* accounts.list({ limit: 2, plan: "free", cursor: free.next })
      expect(freeRest.accounts.map((a) => a.id)).toEqual([ids[0]])
      // A cursor is refused with other filters, and when altered.
      expect(Result.isFailure(yield* Effect.result(accounts.list({ limit: 2, plan: "pro", cursor: free.next })))).toBe(true)
      expect(Result.isFailure(yield* Effect.result(accounts.list({ limit: 2, cursor: `${first.next}x` })))).toBe(true)
      expect(Result.isFailure(yield* Effect.result(accounts.list({ limit: 2, cursor: "not-a-cursor" })))).toBe(true)
    }).pipe(Effect.provide(layer)))

  it.effect("update renames, suspends and resumes, and changes plan and limits by the rules of creation", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account, key } = yield* accounts.create({ plan: "pro" })
      const named = yield* accounts.update(account.id, { name: "Shop" })
      expect(named).toMatchObject({ id: account.id, name: "Shop", plan: "pro", status: "active", limits: account.limits })
      const suspended = yield* accounts.update(account.id, { status: "suspended" })
      expect(suspended.status).toBe("suspended")
      expect(Option.map(yield* accounts.verify(Redacted.value(key.key)), (p) => p.suspended)).toEqual(Option.some(true))
      yield* accounts.update(account.id, { status: "active" })
      expect(Option.map(yield* accounts.verify(Redacted.value(key.key)), (p) => p.suspended)).toEqual(Option.some(false))
      expect((yield* accounts.update(account.id, { name: null })).name).toBeNull()
      // Limits alone on a standard plan, or enterprise without limits: refused, nothing changed.
      expect(Result.isFailure(yield* Effect.result(accounts.update(account.id, { limits: { perMinute: 1, perDay: 2 } })))).toBe(true)
      expect(Result.isFailure(yield* Effect.result(accounts.update(account.id, { plan: "enterprise" })))).toBe(true)
      expect((yield* accounts.findAccount(account.id)).plan).toBe("pro")
      const enterprise = yield* accounts.update(account.id, { plan: "enterprise", limits: { perMinute: 5, perDay: 9 } })
      expect(enterprise).toMatchObject({ plan: "enterprise", limits: { perMinute: 5, perDay: 9 } })
      // An enterprise account keeps its limits when only its name changes, and takes new limits alone.
      expect((yield* accounts.update(account.id, { name: "Big" })).limits).toEqual({ perMinute: 5, perDay: 9 })
      expect((yield* accounts.update(account.id, { limits: { perMinute: 6, perDay: 10 } })).limits).toEqual({ perMinute: 6, perDay: 10 })
      const back = yield* accounts.update(account.id, { plan: "free" })
      expect(back.plan).toBe("free")
      expect(back.limits).not.toEqual({ perMinute: 6, perDay: 10 })
      expect(Result.isFailure(yield* Effect.result(accounts.update("acc_unknown", { name: "x" })))).toBe(true)
    }).pipe(Effect.provide(layer)))
})
