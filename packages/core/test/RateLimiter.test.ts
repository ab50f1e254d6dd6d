import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { TestClock } from "effect/testing"
import * as Clock from "effect/Clock"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as BanPolicy from "../src/BanPolicy.js"
import * as DailyQuota from "../src/DailyQuota.js"
import * as LimitDecision from "../src/LimitDecision.js"
import { type PlanLimits, STANDARD_LIMITS } from "../src/Plan.js"
import { DEFAULT_OPTIONS, makeMemory, RateLimiter, type Subject } from "../src/RateLimiter.js"
import * as TokenBucket from "../src/TokenBucket.js"
import * as MovableClock from "./support/MovableClock.js"

const MINUTE = 60_000
const T = Date.parse("2025-03-01T12:00:00.000Z")
const DAY = DailyQuota.dayOf(T)
const MIDNIGHT = (DAY + 1) * DailyQuota.DAY_MS
const EMPTY = { quotas: [], standings: [] }
const GRACE = BanPolicy.DEFAULT_OPTIONS.graceMillis

const free = (accountId: string, keyId: string): Subject => ({ accountId, keyId, limits: STANDARD_LIMITS.free })
const alice1 = free("alice", "alice-1")
const alice2 = free("alice", "alice-2")
const bob1 = free("bob", "bob-1")

/** Sends `n` requests of `subject` and returns the verdicts. */
const admitTimes = (limiter: RateLimiter["Service"], subject: Subject, n: number) =>
  Effect.forEach(Array.from({ length: n }), () => Effect.map(limiter.admit(subject), (decision) => decision.verdict))

/**
 * Exhausts the Free plan's minute at the current instant until a refusal, then, once the grace is
 * over, sends 11 early requests: a ban, `GRACE` ms after the instant it started at.
 */
const getBanned = (limiter: RateLimiter["Service"], subject: Subject) =>
  Effect.gen(function*() {
    const verdicts = yield* admitTimes(limiter, subject, 61)
    yield* TestClock.adjust(`${GRACE} millis`)
    verdicts.push(...(yield* admitTimes(limiter, subject, 11)))
    expect(verdicts.at(-1)).toBe("key_banned")
    return verdicts
  })

describe("RateLimiter", () => {
  it.effect("limits an account across all its keys, and accounts apart", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* TestClock.setTime(T)
      expect(yield* admitTimes(limiter, alice1, 30)).toEqual(Array(30).fill("allowed"))
      expect(yield* admitTimes(limiter, alice2, 30)).toEqual(Array(30).fill("allowed"))
      const rejected = yield* limiter.admit(alice2)
      expect(rejected).toMatchObject({ verdict: "rate_limited", retryAfterMillis: 1_000 })
      expect((yield* limiter.admit(bob1)).verdict).toBe("allowed")
      // time comes from the Clock: one second refills one token
      yield* TestClock.adjust("999 millis")
      expect((yield* limiter.admit(alice1)).verdict).toBe("rate_limited")
      yield* TestClock.adjust("1 millis")
      expect(yield* limiter.admit(alice1)).toMatchObject({
        verdict: "allowed",
        binding: { name: "minute", remaining: 0, fullAt: T + 1_000 + MINUTE }
      })
    }).pipe(Effect.provide(RateLimiter.layerMemory())))

  it.effect("failed authentications: 100 per address per minute, then 429 until a token is back", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* TestClock.setTime(T)
      for (let i = 0; i < 100; i++) expect((yield* limiter.admitFailedAuth("192.0.2.1")).verdict).toBe("allowed")
      expect(yield* limiter.admitFailedAuth("192.0.2.1")).toMatchObject({
        verdict: "rate_limited",
        retryAfterMillis: 600,
        binding: { name: "minute", quota: 100, remaining: 0, fullAt: T + MINUTE }
      })
      expect((yield* limiter.admitFailedAuth("192.0.2.2")).verdict).toBe("allowed")
      // failed authentications do not count against accounts
      expect(yield* limiter.admit(alice1)).toMatchObject({ verdict: "allowed", binding: { remaining: 59 } })
      yield* TestClock.adjust("599 millis")
      expect(yield* limiter.admitFailedAuth("192.0.2.1")).toMatchObject({
        verdict: "rate_limited",
        retryAfterMillis: 1
      })
      yield* TestClock.adjust("1 millis")
      expect((yield* limiter.admitFailedAuth("192.0.2.1")).verdict).toBe("allowed")
    }).pipe(Effect.provide(RateLimiter.layerMemory())))

  it.effect("takeChanges returns changed daily counts and bans once", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* TestClock.setTime(T)
      expect(yield* limiter.takeChanges).toEqual(EMPTY)
      yield* admitTimes(limiter, alice1, 2)
      yield* limiter.admit(bob1)
      expect(yield* limiter.takeChanges).toEqual({
        quotas: [["alice", { day: DAY, used: 2 }], ["bob", { day: DAY, used: 1 }]],
        standings: []
      })
      expect(yield* limiter.takeChanges).toEqual(EMPTY)

      // 58 more pass, then 429s: strikes are not worth keeping, the ban is
      yield* getBanned(limiter, alice1)
      expect(yield* limiter.takeChanges).toEqual({
        quotas: [["alice", { day: DAY, used: 60 }]],
        standings: [["alice-1", { ...BanPolicy.CLEAN, bannedUntil: T + GRACE + 15 * MINUTE, bans: 1, lastBanAt: T + GRACE }]]
      })
      expect(yield* limiter.takeChanges).toEqual(EMPTY)

      // rejections change nothing worth keeping
      yield* TestClock.adjust("1 second")
      expect((yield* limiter.admit(alice1)).verdict).toBe("key_banned")
      expect((yield* admitTimes(limiter, alice2, 2))).toEqual(["allowed", "rate_limited"])
      expect(yield* limiter.takeChanges).toEqual({ quotas: [["alice", { day: DAY, used: 61 }]], standings: [] })

      // a new UTC day starts from zero
      yield* TestClock.setTime(MIDNIGHT)
      yield* limiter.admit(alice2)
      expect(yield* limiter.takeChanges).toEqual({ quotas: [["alice", { day: DAY + 1, used: 1 }]], standings: [] })
    }).pipe(Effect.provide(RateLimiter.layerMemory())))

  it.effect("restore brings back a daily count, before or after the account's first request", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter
      yield* TestClock.setTime(T)
      yield* admitTimes(limiter, free("carol", "carol-1"), 5)
      yield* limiter.restore({
        quotas: [
          ["alice", { day: DAY, used: 998 }],
          ["bob", { day: DAY - 1, used: 1_000 }],
          ["carol", { day: DAY, used: 100 }]
        ],
        standings: []
      })
      expect(yield* limiter.admit(alice1)).toMatchObject({ verdict: "allowed", binding: { name: "day", remaining: 1 } })
      expect(yield* limiter.admit(alice1)).toMatchObject({ verdict: "allowed", binding: { name: "day", remaining: 0 } })
      expect(yield* limiter.admit(alice2)).toMatchObject({
        verdict: "daily_quota_exceeded",
        retryAfterMillis: MIDNIGHT - T,
        binding: { name: "day", remaining: 0, fullAt: MIDNIGHT }
      })
      // yesterday's count is yesterday's
      expect((yield* limiter.admit(bob1)).limits[1]).toMatchObject({ name: "day", remaining: 999 })
      // an account already in memory keeps its bucket and takes the restored count
      expect((yield* limiter.admit(free("carol", "carol-1"))).limits).toMatchObject([
        { name: "minute", remaining: 54 },
        { name: "day", remaining: 899 }
      ])
    }).pipe(Effect.provide(RateLimiter.layerMemory())))

  it.effect("a restart through takeChanges and restore keeps used counts, bans and their escalation", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T)
      const before = makeMemory(DEFAULT_OPTIONS, yield* Clock.Clock)
      yield* getBanned(before, alice1)
      yield* admitTimes(before, bob1, 5)
      const saved = yield* before.takeChanges

      const after = makeMemory(DEFAULT_OPTIONS, yield* Clock.Clock)
      yield* after.restore(saved)
      yield* TestClock.adjust("1 second")
      expect(yield* after.admit(alice1)).toMatchObject({ verdict: "key_banned", retryAfterMillis: 15 * MINUTE - 1_000 })
      const B = T + GRACE
      // the ban is the key's; the account's other key passes, on the restored count
      expect(yield* after.admit(alice2)).toMatchObject({ verdict: "allowed", limits: [{}, { remaining: 939 }] })
      expect(yield* after.admit(bob1)).toMatchObject({ verdict: "allowed", limits: [{}, { remaining: 994 }] })

      // when the ban ends the key passes again; offending again right away doubles the ban
      yield* TestClock.setTime(B + 15 * MINUTE)
      expect((yield* after.admit(alice1)).verdict).toBe("allowed")
      yield* getBanned(after, alice1)
      const changes = yield* after.takeChanges
      expect(changes.standings).toEqual([
        ["alice-1", { ...BanPolicy.CLEAN, bannedUntil: B + GRACE + 45 * MINUTE, bans: 2, lastBanAt: B + GRACE + 15 * MINUTE }]
      ])
    }))

  for (const { minutes, quiet } of [
    // ms after the end of a 15 min ban when the key offends again (other traffic sweeps idle state first)
    { quiet: 24 * 3_600_000 - 15 * MINUTE, minutes: 30 },
    { quiet: 24 * 3_600_000 - 1, minutes: 30 },
    { quiet: 24 * 3_600_000, minutes: 15 }
  ]) {
    const title = `the sweep of idle state keeps a ban's escalation for 24 h after it ends (${quiet} ms → ${minutes} min)`
    it.effect(title, () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        yield* TestClock.setTime(T)
        yield* getBanned(limiter, alice1)
        yield* limiter.takeChanges
        const offence = T + 15 * MINUTE + quiet
        yield* TestClock.setTime(offence)
        yield* limiter.admit(bob1)
        yield* getBanned(limiter, alice1)
        const { standings } = yield* limiter.takeChanges
        expect(standings).toEqual([["alice-1", expect.objectContaining({ bannedUntil: offence + GRACE + minutes * MINUTE })]])
      }).pipe(Effect.provide(RateLimiter.layerMemory())))
  }

  // Small plans, short bans and a short memory, so that limits, bans and the sweep of idle state all happen.
  const arbPlan: fc.Arbitrary<PlanLimits> = fc.record({
    perMinute: fc.integer({ min: 1, max: 30 }),
    perDay: fc.integer({ min: 1, max: 300 })
  })
  const arbOptions = fc.record({
    ban: fc.record({
      threshold: fc.integer({ min: 0, max: 4 }),
      baseMillis: fc.integer({ min: 1, max: 5 * MINUTE }),
      maxMillis: fc.integer({ min: 1, max: 30 * MINUTE }),
      memoryMillis: fc.integer({ min: 0, max: 60 * MINUTE }),
      graceMillis: fc.integer({ min: 0, max: 3_000 })
    }),
    failedAuthPerMinute: fc.integer({ min: 1, max: 10 })
  })
  const arbRequest = fc.record({
    account: fc.constantFrom<"A" | "B">("A", "B"),
    key: fc.constantFrom(1, 2),
    failedAuth: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 })
  })
  /**
   * Ticks of requests arriving at the same instant, in runs of one key or address; gaps of seconds,
   * of minutes, and of the order of a ban plus its memory.
   */
  const arbTicks = (ban: BanPolicy.BanPolicyOptions) =>
    fc.array(
      fc.record({
        gap: fc.oneof(
          fc.integer({ min: 1, max: 3_000 }),
          fc.integer({ min: 1, max: 30 * MINUTE }),
          fc.integer({ min: 1, max: ban.maxMillis + ban.memoryMillis })
        ),
        // the persister takes the changes before the tick's requests (only then may idle standings go)
        flush: fc.boolean(),
        requests: fc.array(fc.tuple(arbRequest, fc.integer({ min: 1, max: 6 })), { minLength: 1, maxLength: 4 })
          .map((runs) => runs.flatMap(([request, times]) => Array<typeof request>(times).fill(request)))
      }),
      { minLength: 1, maxLength: 40 }
    )
  const arbTraffic = fc.record({
    limits: fc.record({ A: arbPlan, B: arbPlan }),
    options: arbOptions,
    // within two hours before a UTC midnight
    start: fc.integer({ min: 1, max: 2 * 3_600_000 }).map((before) => MIDNIGHT - before)
  }).chain((traffic) => arbTicks(traffic.options.ban).map((ticks) => ({ ...traffic, ticks })))
  type Traffic = typeof arbTraffic extends fc.Arbitrary<infer A> ? A : never
  type Request = Traffic["ticks"][number]["requests"][number]

  /** Each request with its instant. */
  const arrivals = (traffic: Traffic) => {
    let now = traffic.start
    return traffic.ticks.flatMap((tick) => {
      now += tick.gap
      return tick.requests.map((request) => ({ request, now }))
    })
  }

  /**
   * Plays the traffic on a fresh limiter: the decision of each request that `include` keeps. The
   * limiter reads the instant from a clock the test sets (`MovableClock`): TestClock.setTime lets forked fibers
   * settle through timer turns of the event loop at every step, which thousands of steps per property
   * cannot afford on a busy machine.
   */
  const play = (traffic: Traffic, include: (request: Request) => boolean = () => true) => {
    let now = traffic.start
    const time = MovableClock.make()
    time.set(now)
    const limiter = makeMemory({ ...DEFAULT_OPTIONS, ...traffic.options }, time.clock)
    return Effect.gen(function*() {
      const decisions: Array<LimitDecision.Decision> = []
      for (const tick of traffic.ticks) {
        now += tick.gap
        time.set(now)
        if (tick.flush) yield* limiter.takeChanges
        for (const request of tick.requests) {
          if (!include(request)) continue
          decisions.push(
            yield* request.failedAuth
              ? limiter.admitFailedAuth(`address-${request.account}`)
              : limiter.admit({
                accountId: request.account,
                keyId: `${request.account}-${request.key}`,
                limits: traffic.limits[request.account]
              })
          )
        }
      }
      return decisions
    }).pipe(Effect.provideService(Clock.Clock, time.clock))
  }

  // Plain properties run synchronously: the Clock is `play`'s, so the test services are not needed.
  prop(
    "one account's traffic never changes another's decisions",
    [arbTraffic],
    ([traffic]) => {
      const ofA = (request: Request) => request.account === "A"
      const alone = Effect.runSync(play(traffic, ofA))
      const together = Effect.runSync(play(traffic))
      const requests = arrivals(traffic).map(({ request }) => request)
      expect(together.filter((_, i) => ofA(requests[i]))).toEqual(alone)
    },
    { fastCheck: { numRuns: 100 } }
  )

  prop(
    "decides as the pure decision over each account's, key's and address's own history",
    [arbTraffic],
    ([traffic]) => {
      const { ban, failedAuthPerMinute } = traffic.options
      const usage = new Map<string, LimitDecision.AccountUsage>()
      const standings = new Map<string, BanPolicy.KeyStanding>()
      const addresses = new Map<string, TokenBucket.TokenBucketState>()
      const expected = arrivals(traffic).map(({ now, request }) => {
        if (request.failedAuth) {
          const bucket = addresses.get(request.account) ?? TokenBucket.full(failedAuthPerMinute, now)
          const next = LimitDecision.decideAddress(failedAuthPerMinute, bucket, now)
          addresses.set(request.account, next.bucket)
          return next.decision
        }
        const limits = traffic.limits[request.account]
        const keyId = `${request.account}-${request.key}`
        const next = LimitDecision.decide(
          limits,
          usage.get(request.account) ?? LimitDecision.freshUsage(limits, now),
          standings.get(keyId) ?? BanPolicy.CLEAN,
          now,
          1,
          ban
        )
        usage.set(request.account, next.usage)
        standings.set(keyId, next.standing)
        return next.decision
      })
      expect(Effect.runSync(play(traffic))).toEqual(expected)
    },
    { fastCheck: { numRuns: 100 } }
  )
})
