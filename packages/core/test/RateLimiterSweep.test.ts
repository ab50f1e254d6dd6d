import { TestClock } from "effect/testing"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as BanPolicy from "../src/BanPolicy.js"
import * as LimitDecision from "../src/LimitDecision.js"
import { PlanLimits } from "../src/Plan.js"
import * as Plan from "../src/Plan.js"
import { RateLimiter, type Subject } from "../src/RateLimiter.js"
import * as TokenBucket from "../src/TokenBucket.js"
import { jsonSchemaOf } from "./support/JsonSchema.js"

// The limiter forgets, once a minute, what equals the default state; these tests pin that it never
// forgets anything that still matters (a ban, a ban not yet persisted) and that only real changes
// are reported for persistence.

const MINUTE = 60_000
const T = Date.parse("2025-03-01T12:00:00.000Z")
const subject = (accountId: string, keyId: string): Subject => ({ accountId, keyId, limits: Plan.STANDARD_LIMITS.free })
const alice = subject("alice", "alice-1")
const bob = subject("bob", "bob-1")

const GRACE = BanPolicy.DEFAULT_OPTIONS.graceMillis

/**
 * Exhausts the key's minute and, from the end of the grace that follows the first refusal, sends
 * early requests until the key is banned (`GRACE` ms after the first refusal).
 */
const ban = (limiter: RateLimiter["Service"], who: Subject) =>
  Effect.gen(function*() {
    let refused = false
    for (let i = 0; i < 80; i++) {
      const { verdict } = yield* limiter.admit(who)
      if (verdict === "key_banned") return
      if (verdict !== "allowed" && !refused) {
        refused = true
        yield* TestClock.adjust(`${GRACE} millis`)
      }
    }
    throw new Error("not banned")
  })

describe("RateLimiter state", () => {
  it.effect("a ban survives the once-a-minute sweep", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* TestClock.setTime(T)
      yield* ban(limiter, alice)
      for (let i = 1; i <= 5; i++) {
        yield* TestClock.adjust("61 seconds")
        yield* limiter.admit(bob) // sweeps
        yield* limiter.admitFailedAuth("192.0.2.9")
        expect((yield* limiter.admit(alice)).verdict).toBe("key_banned")
      }
    }).pipe(Effect.provide(RateLimiter.layerMemory())))

  it.effect("a ban that ended but was not yet taken for persistence is still reported after a sweep", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* TestClock.setTime(T)
      yield* ban(limiter, alice)
      yield* TestClock.adjust(`${15 * MINUTE + 25 * 60 * MINUTE} millis`)
      yield* limiter.admit(bob) // sweeps: alice's standing has nothing left to remember, but is not persisted yet
      const changes = yield* limiter.takeChanges
      expect(changes.standings).toEqual([
        ["alice-1", { ...BanPolicy.CLEAN, bannedUntil: T + GRACE + 15 * MINUTE, bans: 1, lastBanAt: T + GRACE }]
      ])
    }).pipe(Effect.provide(RateLimiter.layerMemory())))

  it.effect("a second ban within a day of the first doubles, also across sweeps", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* TestClock.setTime(T)
      yield* ban(limiter, alice)
      yield* limiter.takeChanges
      yield* TestClock.adjust(`${15 * MINUTE + 60 * MINUTE} millis`)
      yield* limiter.admit(bob) // sweep
      yield* ban(limiter, alice)
      const [, standing] = (yield* limiter.takeChanges).standings[0]!
      expect(standing.bans).toBe(2)
      expect(standing.bannedUntil - standing.lastBanAt).toBe(30 * MINUTE)
    }).pipe(Effect.provide(RateLimiter.layerMemory())))

  it.effect("requests that are only refused change no daily count", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* TestClock.setTime(T)
      for (let i = 0; i < 60; i++) yield* limiter.admit(alice)
      yield* limiter.takeChanges
      expect((yield* limiter.admit(alice)).verdict).toBe("rate_limited")
      expect((yield* limiter.admit(alice)).verdict).toBe("rate_limited")
      expect(yield* limiter.takeChanges).toEqual({ quotas: [], standings: [] })
    }).pipe(Effect.provide(RateLimiter.layerMemory())))
})

describe("RateLimiter failed-authentication record", () => {
  const options = { failedAuthPerMinute: 2, failedAuthAddressesKept: 2 }
  const verdicts = (limiter: RateLimiter["Service"], address: string, n: number) =>
    Effect.forEach(Array.from({ length: n }), () => Effect.map(limiter.admitFailedAuth(address), (d) => d.verdict))

  it.effect("is bounded: a new address at a full record empties it (giving failures back early); a known address does not", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* TestClock.setTime(T)
      expect(yield* verdicts(limiter, "192.0.2.1", 3)).toEqual(["allowed", "allowed", "rate_limited"])
      expect(yield* verdicts(limiter, "192.0.2.2", 1)).toEqual(["allowed"])
      // Two addresses kept: a known one is decided on its own record.
      expect(yield* verdicts(limiter, "192.0.2.1", 1)).toEqual(["rate_limited"])
      // A third address empties the record: the first one's failures are forgotten.
      expect(yield* verdicts(limiter, "192.0.2.3", 1)).toEqual(["allowed"])
      expect(yield* verdicts(limiter, "192.0.2.1", 2)).toEqual(["allowed", "allowed"])
    }).pipe(Effect.provide(RateLimiter.layerMemory(options))))

  it.effect("forgets, once a minute, addresses whose bucket is full again, so they do not crowd out one still limited", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* TestClock.setTime(T)
      expect(yield* verdicts(limiter, "192.0.2.1", 1)).toEqual(["allowed"])
      // A minute later the first address is full again and forgotten by the sweep after this decision.
      yield* TestClock.adjust(`${MINUTE} millis`)
      expect(yield* verdicts(limiter, "192.0.2.2", 3)).toEqual(["allowed", "allowed", "rate_limited"])
      // So a new address finds room and the limited one keeps its count.
      expect(yield* verdicts(limiter, "192.0.2.3", 1)).toEqual(["allowed"])
      expect(yield* verdicts(limiter, "192.0.2.2", 1)).toEqual(["rate_limited"])
    }).pipe(Effect.provide(RateLimiter.layerMemory(options))))
})

describe("LimitDecision edge cases", () => {
  it("the failed-authentication decision reports its one limit", () => {
    const { decision } = LimitDecision.decideAddress(100, TokenBucket.full(100, T), T)
    expect(decision.limits).toEqual([decision.binding])
    expect(decision.binding).toMatchObject({ name: "minute", quota: 100, windowSeconds: 60, remaining: 99 })
  })

  it("on a tie in remaining and reset, the minute limit binds", () => {
    const limits = { perMinute: 5, perDay: 5 }
    const standing = { ...BanPolicy.CLEAN, bannedUntil: T - 1, bans: 1, lastBanAt: T - 1 }
    // A fresh account: both limits full and back to full now.
    const { decision } = LimitDecision.decide(limits, LimitDecision.freshUsage(limits, T), standing, T, 0, BanPolicy.DEFAULT_OPTIONS)
    expect(decision.binding).toMatchObject({ name: "minute", remaining: 5, fullAt: T })
  })
})

describe("Plan schemas", () => {
  it("carry their OpenAPI names", () => {
    expect(jsonSchemaOf(Plan.Plan)).toMatchObject({ $ref: "#/$defs/Plan" })
    expect(jsonSchemaOf(PlanLimits)).toMatchObject({ $ref: "#/$defs/PlanLimits" })
  })
})
