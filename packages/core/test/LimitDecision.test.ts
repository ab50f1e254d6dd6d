import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"

import * as BanPolicy from "../src/BanPolicy.js"
import * as DailyQuota from "../src/DailyQuota.js"
import * as LimitDecision from "../src/LimitDecision.js"
import { type PlanLimits, STANDARD_LIMITS } from "../src/Plan.js"
import * as TokenBucket from "../src/TokenBucket.js"

const { DAY_MS } = DailyQuota
const MINUTE = 60_000
const DAY0 = Date.parse("2025-03-01T00:00:00.000Z")
const NO_BANS: BanPolicy.BanPolicyOptions = { ...BanPolicy.DEFAULT_OPTIONS, threshold: Number.MAX_SAFE_INTEGER }

interface Step {
  readonly now: number
  readonly before: LimitDecision.AccountUsage
  readonly usage: LimitDecision.AccountUsage
  readonly standing: BanPolicy.KeyStanding
  readonly decision: LimitDecision.Decision
}

/** One key of a fresh account (created at `start`) sending one request at each instant of `times`. */
const simulate = (
  limits: PlanLimits,
  start: number,
  times: ReadonlyArray<number>,
  ban: BanPolicy.BanPolicyOptions
): Array<Step> => {
  let usage = LimitDecision.freshUsage(limits, start)
  let standing = BanPolicy.CLEAN
  return times.map((now) => {
    const before = usage
    const next = LimitDecision.decide(limits, usage, standing, now, 1, ban)
    usage = next.usage
    standing = next.standing
    return { now, before, usage, standing, decision: next.decision }
  })
}

const admittedTimes = (steps: ReadonlyArray<Step>) =>
  steps.filter((step) => step.decision.verdict === "allowed").map((step) => step.now)

/**
 * The first window [t0, t1] between admitted arrivals that holds more than
 * perMinute + floor(perMinute·(t1 − t0)/60000) admissions. Any other window is covered: shrinking it
 * to its first and last admitted arrival keeps the count and only shortens it. For i ≤ j the bound
 * j − i + 1 ≤ P + floor(P·(a[j] − a[i])/60000) is, in integers,
 * 60000·(j + 1 − P) − P·a[j] ≤ 60000·i − P·a[i], so a running minimum of the right side checks every
 * pair in one pass.
 */
const windowViolation = (perMinute: number, admitted: ReadonlyArray<number>) => {
  const origin = admitted[0] ?? 0
  let first = 0
  let least = Infinity
  for (let j = 0; j < admitted.length; j++) {
    const right = MINUTE * j - perMinute * (admitted[j] - origin)
    if (right < least) {
      least = right
      first = j
    }
    if (MINUTE * (j + 1 - perMinute) - perMinute * (admitted[j] - origin) > least) {
      const bound = perMinute + Math.floor((perMinute * (admitted[j] - admitted[first])) / MINUTE)
      return { t0: admitted[first], t1: admitted[j], admitted: j - first + 1, bound }
    }
  }
  return undefined
}

/**
 * Compares element by element, fast: as JSON first (these are plain records of numbers and strings),
 * and with toEqual, for its diff, where the JSON differs.
 */
const expectSameSequence = (actual: ReadonlyArray<unknown>, expected: ReadonlyArray<unknown>) => {
  expect(actual.length).toBe(expected.length)
  actual.forEach((element, i) => {
    if (JSON.stringify(element) !== JSON.stringify(expected[i])) {
      expect({ i, element }).toEqual({ i, element: expected[i] })
    }
  })
}

// Plans: the published ones and custom ones, biased towards limits a short schedule reaches.
const arbLimits: fc.Arbitrary<PlanLimits> = fc.oneof(
  { arbitrary: fc.constantFrom(...Object.values(STANDARD_LIMITS)), weight: 1 },
  {
    arbitrary: fc.record({
      perMinute: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 2000 })),
      perDay: fc.oneof(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 3_000 }),
        fc.integer({ min: 1, max: 200_000 })
      )
    }),
    weight: 3
  }
)

// Anywhere in a month, or within two minutes before a UTC midnight.
const arbStart = fc.oneof(
  fc.integer({ min: 0, max: 30 * DAY_MS - 1 }).map((offset) => DAY0 + offset),
  fc.tuple(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 2 * MINUTE }))
    .map(([day, before]) => DAY0 + day * DAY_MS - before)
)

const arbGap = fc.oneof(
  { arbitrary: fc.constant(0), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 5_000 }), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 2 * MINUTE }), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: DAY_MS }), weight: 1 }
)

/**
 * Sorted integer arrival instants after `start`: segments of arrivals `spacing` ms apart (0: a burst
 * at one ms), with spacings around the refill interval of a `perMinute` bucket so that its edges are hit.
 */
const arbSchedule = (perMinute: number, maxArrivals: number) => {
  const interval = Math.ceil(MINUTE / perMinute)
  const arbSegment = fc.record({
    gap: arbGap,
    count: fc.oneof(
      fc.constant(1),
      fc.integer({ min: 1, max: perMinute + 2 }),
      fc.integer({ min: perMinute, max: 2 * perMinute + 2 })
    ),
    spacing: fc.oneof(
      fc.constant(0),
      fc.constant(interval),
      fc.integer({ min: 0, max: interval }),
      fc.integer({ min: 0, max: 2 * interval })
    )
  })
  return fc.tuple(arbStart, fc.array(arbSegment, { minLength: 1, maxLength: 20 })).map(([start, segments]) => {
    const times: Array<number> = []
    let now = start
    for (const { count, gap, spacing } of segments) {
      now += gap
      for (let i = 0; i < count && times.length < maxArrivals; i++) times.push(i === 0 ? now : (now += spacing))
    }
    return { start, times }
  })
}

const arbBanOptions = fc.record({ threshold: fc.integer({ min: 0, max: 12 }), graceMillis: fc.integer({ min: 0, max: 1_000 }) })
  .map((ban) => ({ ...BanPolicy.DEFAULT_OPTIONS, ...ban }))

/** A plan, ban options and a schedule of at most `maxArrivals` requests scaled to the plan. */
const arbScenario = (maxArrivals: number) =>
  fc.tuple(arbLimits, arbBanOptions).chain(([limits, ban]) =>
    arbSchedule(limits.perMinute, maxArrivals).map(({ start, times }) => ({ limits, ban, start, times }))
  )

/** The header laws a decision breaks, by name (none when it keeps them all). */
const brokenHeaderLaws = (limits: PlanLimits, { decision, now, usage }: Step): Array<string> => {
  const { binding, limits: [minute, day], retryAfterMillis, verdict } = decision
  const full = limits.perMinute * TokenBucket.UNIT
  const all = [minute, day, binding]
  const fewest = Math.min(minute.remaining, day.remaining)
  const tied = decision.limits.filter((limit) => limit.remaining === fewest)
  const laws: Array<readonly [string, boolean]> = [
    [
      "the limits are the plan's minute and day",
      minute.name === "minute" && minute.quota === limits.perMinute && minute.windowSeconds === 60 &&
      day.name === "day" && day.quota === limits.perDay && day.windowSeconds === 86_400
    ],
    ["minute remaining = whole tokens left", minute.remaining === TokenBucket.tokens(usage.bucket)],
    [
      "minute fullAt = the first instant the bucket is full",
      TokenBucket.refill(usage.bucket, limits.perMinute, minute.fullAt).units === full &&
      (minute.fullAt === now || TokenBucket.refill(usage.bucket, limits.perMinute, minute.fullAt - 1).units < full)
    ],
    ["day remaining = quota − used", day.remaining === Math.max(0, limits.perDay - usage.quota.used)],
    [
      "day fullAt = now when unused, else the next UTC midnight",
      day.fullAt === (usage.quota.used === 0 ? now : (DailyQuota.dayOf(now) + 1) * DAY_MS)
    ],
    ["remaining is an integer ≥ 0", all.every((limit) => Number.isInteger(limit.remaining) && limit.remaining >= 0)],
    ["fullAt ≥ now", all.every((limit) => limit.fullAt >= now)],
    [
      "retryAfterMillis is an integer, > 0 iff rejected",
      Number.isInteger(retryAfterMillis) && (retryAfterMillis > 0) === (verdict !== "allowed")
    ],
    ["the reset is never before the instant Retry-After points to", binding.fullAt >= now + retryAfterMillis],
    [
      "binding is the limit with the fewest remaining, the later reset on a tie (0 remaining when banned)",
      verdict === "key_banned"
        ? binding.remaining === 0
        : tied.some((limit) => limit.name === binding.name && limit.remaining === binding.remaining) &&
          binding.fullAt === Math.max(...tied.map((limit) => limit.fullAt))
    ],
    [
      "rate_limited binds the minute at 0",
      verdict !== "rate_limited" || (binding.name === "minute" && binding.remaining === 0)
    ],
    ["daily_quota_exceeded has the day at 0", verdict !== "daily_quota_exceeded" || day.remaining === 0]
  ]
  return laws.filter(([, kept]) => !kept).map(([law]) => law)
}

const numRuns = { fastCheck: { numRuns: 100 } }

describe("LimitDecision", () => {
  describe("decide, exact cases (3/min, 4/day, starting one minute before a UTC midnight)", () => {
    const limits = { perMinute: 3, perDay: 4 }
    const T0 = Date.parse("2025-03-01T23:59:00.000Z")
    const MIDNIGHT = T0 + MINUTE
    // at (ms after T0) → verdict, retryAfterMillis, binding limit, its remaining and fullAt (ms after T0)
    const table = [
      { at: 0, verdict: "allowed", retry: 0, binding: "minute", remaining: 2, fullAt: 20_000 },
      { at: 0, verdict: "allowed", retry: 0, binding: "minute", remaining: 1, fullAt: 40_000 },
      { at: 0, verdict: "allowed", retry: 0, binding: "minute", remaining: 0, fullAt: 60_000 },
      { at: 0, verdict: "rate_limited", retry: 20_000, binding: "minute", remaining: 0, fullAt: 60_000 },
      { at: 19_999, verdict: "rate_limited", retry: 1, binding: "minute", remaining: 0, fullAt: 60_000 },
      // both at 0 remaining: the later reset binds
      { at: 20_000, verdict: "allowed", retry: 0, binding: "minute", remaining: 0, fullAt: 80_000 },
      // the bucket has a token again but the day is used up: wait for midnight
      { at: 50_000, verdict: "daily_quota_exceeded", retry: 10_000, binding: "day", remaining: 0, fullAt: 60_000 },
      { at: 59_999, verdict: "daily_quota_exceeded", retry: 1, binding: "day", remaining: 0, fullAt: 60_000 },
      { at: 60_000, verdict: "allowed", retry: 0, binding: "minute", remaining: 1, fullAt: 100_000 },
      { at: 60_000, verdict: "allowed", retry: 0, binding: "minute", remaining: 0, fullAt: 120_000 },
      { at: 60_000, verdict: "rate_limited", retry: 20_000, binding: "minute", remaining: 0, fullAt: 120_000 }
    ] as const
    // Run inside each test, not while the file is collected, so mutation testing sees which tests cover what.
    const run = () => simulate(limits, T0, table.map((row) => T0 + row.at), BanPolicy.DEFAULT_OPTIONS)

    table.forEach(({ at, binding, fullAt, remaining, retry, verdict }, i) => {
      const title = `#${i} at +${at} ms: ${verdict}, retry ${retry} ms, ${binding} remaining ${remaining} until +${fullAt} ms`
      it(title, () => {
        const steps = run()
        const { decision } = steps[i]
        expect(decision.verdict).toBe(verdict)
        expect(decision.retryAfterMillis).toBe(retry)
        expect(decision.binding).toMatchObject({ name: binding, remaining, fullAt: T0 + fullAt })
        expect(steps[i].now).toBe(T0 + at)
      })
    })

    it("reports both limits; the day resets at the next midnight", () => {
      const steps = run()
      expect(steps[0].decision.limits).toEqual([
        { name: "minute", quota: 3, windowSeconds: 60, remaining: 2, fullAt: T0 + 20_000 },
        { name: "day", quota: 4, windowSeconds: 86_400, remaining: 3, fullAt: MIDNIGHT }
      ])
      expect(steps[8].decision.limits[1]).toEqual({
        name: "day",
        quota: 4,
        windowSeconds: 86_400,
        remaining: 3,
        fullAt: MIDNIGHT + DAY_MS
      })
    })
  })

  it("Free plan: 72 at once: 60 pass, 12 get 429 within the grace; the 11th early request after the grace bans for 15 min", () => {
    const limits = STANDARD_LIMITS.free
    const T = Date.parse("2025-03-01T12:00:00.000Z")
    const G = T + BanPolicy.DEFAULT_OPTIONS.graceMillis
    const B = G + 10
    const times = [...Array(72).fill(T), ...Array(10).fill(G), B, B + 15 * MINUTE - 1, B + 15 * MINUTE, B + 15 * MINUTE + 1]
    const steps = simulate(limits, T, times, BanPolicy.DEFAULT_OPTIONS)
    const verdicts = steps.map((step) => step.decision.verdict)
    expect(verdicts.slice(0, 60)).toEqual(Array(60).fill("allowed"))
    expect(steps[59].decision.binding).toMatchObject({ name: "minute", remaining: 0, fullAt: T + MINUTE })
    // the 61st to 72nd are told to wait 1 s; sent together with the others, they are no strikes
    expect(verdicts.slice(60, 72)).toEqual(Array(12).fill("rate_limited"))
    expect(steps.slice(60, 72).map((step) => step.decision.retryAfterMillis)).toEqual(Array(12).fill(1_000))
    expect(steps[71].standing).toMatchObject({ strikes: 0, graceUntil: G, waitUntil: T + 1_000 })
    // after the grace, the next 10 arrive early and are strikes 1..10
    expect(verdicts.slice(72, 82)).toEqual(Array(10).fill("rate_limited"))
    expect(steps[81].standing.strikes).toBe(10)
    // the 11th early request earns the ban; a ban consumes nothing
    expect(steps[82].decision).toMatchObject({
      verdict: "key_banned",
      retryAfterMillis: 15 * MINUTE,
      binding: { name: "minute", remaining: 0, fullAt: B + 15 * MINUTE }
    })
    expect(steps[82].usage.quota).toEqual(steps[59].usage.quota)
    expect(steps[82].usage.bucket).toEqual(TokenBucket.refill(steps[59].usage.bucket, limits.perMinute, B))
    expect(steps[83].decision).toMatchObject({ verdict: "key_banned", retryAfterMillis: 1 })
    expect(steps[84].decision).toMatchObject({ verdict: "allowed", binding: { name: "minute", remaining: 59 } })
    expect(steps[85].decision.verdict).toBe("allowed")
  })

  for (const { burst, perMinute, remaining, retry, verdict } of [
    // perMinute, failed auths at the same ms → verdict of the last, its retry, remaining
    { perMinute: 100, burst: 1, verdict: "allowed", retry: 0, remaining: 99 },
    { perMinute: 100, burst: 100, verdict: "allowed", retry: 0, remaining: 0 },
    { perMinute: 100, burst: 101, verdict: "rate_limited", retry: 600, remaining: 0 },
    { perMinute: 7, burst: 8, verdict: "rate_limited", retry: 8_572, remaining: 0 },
    { perMinute: 1, burst: 2, verdict: "rate_limited", retry: 60_000, remaining: 0 }
  ]) {
    const title = `decideAddress: ${perMinute}/min, ${burst} at once → ${verdict}, retry ${retry} ms, remaining ${remaining}`
    it(title, () => {
      const T = Date.parse("2025-03-01T12:00:00.000Z")
      let bucket = TokenBucket.full(perMinute, T)
      let decision: LimitDecision.Decision | undefined
      for (let i = 0; i < burst; i++) ({ bucket, decision } = LimitDecision.decideAddress(perMinute, bucket, T))
      expect(decision).toMatchObject({ verdict, retryAfterMillis: retry, binding: { name: "minute", remaining } })
      if (retry > 0) {
        expect(LimitDecision.decideAddress(perMinute, bucket, T + retry - 1).decision.verdict).toBe("rate_limited")
        expect(LimitDecision.decideAddress(perMinute, bucket, T + retry).decision.verdict).toBe("allowed")
      }
    })
  }

  prop(
    "never admits more than capacity + rate·t in any window of length t",
    [arbScenario(2_000)],
    ([{ ban, limits, start, times }]) => {
      const admitted = admittedTimes(simulate(limits, start, times, ban))
      expect(windowViolation(limits.perMinute, admitted)).toBeUndefined()
    },
    numRuns
  )

  prop(
    "never admits more than the daily quota in a UTC day",
    [arbScenario(2_000)],
    ([{ ban, limits, start, times }]) => {
      const perDay = new Map<number, number>()
      for (const now of admittedTimes(simulate(limits, start, times, ban))) {
        perDay.set(DailyQuota.dayOf(now), (perDay.get(DailyQuota.dayOf(now)) ?? 0) + 1)
      }
      for (const count of perDay.values()) expect(count).toBeLessThanOrEqual(limits.perDay)
    },
    numRuns
  )

  prop(
    "a rejected request consumes nothing: later decisions equal those of a world where it never happened",
    [arbScenario(300), fc.array(fc.nat(), { maxLength: 4 })],
    ([{ ban, limits, start, times }, picks]) => {
      // State after any rejection (bans included) is the state before, refilled and rolled to that instant.
      const rejections = simulate(limits, start, times, ban).filter((step) => step.decision.verdict !== "allowed")
      expectSameSequence(
        rejections.map((step) => step.usage),
        rejections.map((step) => ({
          bucket: TokenBucket.refill(step.before.bucket, limits.perMinute, step.now),
          quota: DailyQuota.roll(step.before.quota, step.now)
        }))
      )
      // Without bans (whose strikes are meant to remember rejections), dropping a rejected request
      // changes nothing that follows.
      const all = simulate(limits, start, times, NO_BANS)
      const rejected = all.flatMap((step, i) => (step.decision.verdict === "allowed" ? [] : [i]))
      if (rejected.length === 0) return
      const observe = (steps: ReadonlyArray<Step>) => steps.map((step) => [step.decision, step.usage])
      for (const k of new Set([rejected[0], ...picks.map((p) => rejected[p % rejected.length])])) {
        const without = simulate(limits, start, times.filter((_, i) => i !== k), NO_BANS)
        expectSameSequence(observe(without.slice(k)), observe(all.slice(k + 1)))
      }
    },
    numRuns
  )

  prop(
    "a client that honours Retry-After is never banned and its retry succeeds (absent other traffic)",
    [arbScenario(1_000)],
    ([{ ban, limits, start, times }]) => {
      let usage = LimitDecision.freshUsage(limits, start)
      let standing = BanPolicy.CLEAN
      let now = start
      const send = () => {
        const next = LimitDecision.decide(limits, usage, standing, now, 1, ban)
        usage = next.usage
        standing = next.standing
        return next.decision
      }
      // A greedy client: it sends each request when it wants to unless it is waiting, and on a 429
      // waits exactly Retry-After (whole seconds) and retries.
      const problems: Array<string> = []
      for (const wanted of times) {
        now = Math.max(now, wanted)
        const first = send()
        if (first.verdict === "allowed") continue
        if (first.verdict === "key_banned") problems.push(`banned at ${now}`)
        const retryAfterSeconds = Math.ceil(first.retryAfterMillis / 1000)
        if (retryAfterSeconds < 1) problems.push(`Retry-After ${retryAfterSeconds} s at ${now}`)
        now += retryAfterSeconds * 1000
        const retry = send()
        if (retry.verdict !== "allowed") problems.push(`retry at ${now}: ${retry.verdict}`)
        if (standing.strikes !== 0 || standing.bannedUntil !== 0) problems.push(`strikes or ban at ${now}`)
        if (problems.length > 0) break
      }
      expect(problems).toEqual([])
    },
    numRuns
  )

  prop(
    "a client that keeps sending while told to wait is banned after more than threshold early requests after the grace",
    [arbLimits, arbStart, fc.integer({ min: 0, max: 15 }), fc.array(fc.nat(), { minLength: 16, maxLength: 16 }), fc.nat()],
    ([limits, start, threshold, offsets, grace]) => {
      let usage = LimitDecision.freshUsage(limits, start)
      let standing = BanPolicy.CLEAN
      const send = (now: number, ban: BanPolicy.BanPolicyOptions) => {
        const next = LimitDecision.decide(limits, usage, standing, now, 1, ban)
        usage = next.usage
        standing = next.standing
        return next.decision
      }
      // A burst at `start` until the first 429, which sets the instant to wait for (whatever the
      // ban options: they decide only what a rejection does to the standing).
      const wait = simulate(limits, start, Array(limits.perMinute + 1).fill(start), NO_BANS).at(-1)!.decision.retryAfterMillis
      const ban = { ...BanPolicy.DEFAULT_OPTIONS, threshold, graceMillis: grace % wait }
      let told = send(start, ban)
      while (told.verdict === "allowed") told = send(start, ban)
      expect(["rate_limited", "daily_quota_exceeded"]).toContain(told.verdict)
      expect(told.retryAfterMillis).toBe(wait)
      const waitUntil = start + wait
      const early = offsets.slice(0, threshold + 1)
        .map((offset) => start + ban.graceMillis + (offset % (wait - ban.graceMillis)))
        .sort((a, b) => a - b)
      early.forEach((now, i) => {
        const decision = send(now, ban)
        if (i < threshold) {
          // tolerated, and still told to come back at the same instant (the verdict may turn from
          // daily_quota_exceeded to rate_limited at midnight)
          expect(["rate_limited", "daily_quota_exceeded"]).toContain(decision.verdict)
          expect(decision.retryAfterMillis).toBe(waitUntil - now)
        } else {
          expect(decision).toMatchObject({ verdict: "key_banned", retryAfterMillis: ban.baseMillis })
        }
      })
      const bannedUntil = early[threshold] + ban.baseMillis
      expect(standing.bannedUntil).toBe(bannedUntil)
      expect(send(bannedUntil - 1, ban)).toMatchObject({ verdict: "key_banned", retryAfterMillis: 1 })
      expect(send(bannedUntil, ban).verdict).not.toBe("key_banned")
    },
    numRuns
  )

  prop(
    "headers come from the same decision: binding has the fewest remaining, remaining ≥ 0, fullAt ≥ now, retryAfterMillis > 0 iff rejected",
    [arbScenario(400)],
    ([{ ban, limits, start, times }]) => {
      const steps = simulate(limits, start, times, ban)
      const failure = steps.map((step) => ({ step, broken: brokenHeaderLaws(limits, step) }))
        .find(({ broken }) => broken.length > 0)
      expect(failure).toBeUndefined()
    },
    numRuns
  )

  prop(
    "the address bucket admits at most capacity + rate·t failed authentications in any window of length t",
    [
      fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 2000 })).chain((perMinute) =>
        arbSchedule(perMinute, 2_000).map((schedule) => ({ perMinute, ...schedule }))
      )
    ],
    ([{ perMinute, start, times }]) => {
      let bucket = TokenBucket.full(perMinute, start)
      const admitted: Array<number> = []
      const broken: Array<string> = []
      for (const now of times) {
        const next = LimitDecision.decideAddress(perMinute, bucket, now)
        const { binding, retryAfterMillis, verdict } = next.decision
        const refilled = TokenBucket.refill(bucket, perMinute, now)
        bucket = next.bucket
        if ((retryAfterMillis > 0) !== (verdict === "rate_limited")) broken.push(`${verdict}, retry ${retryAfterMillis} ms`)
        if (verdict === "rate_limited" && bucket.units !== refilled.units) broken.push(`a 429 consumed at ${now}`)
        if (binding.remaining !== TokenBucket.tokens(bucket) || binding.remaining < 0) {
          broken.push(`remaining ${binding.remaining} at ${now}`)
        }
        if (binding.fullAt < now + retryAfterMillis) broken.push(`reset before retry at ${now}`)
        if (verdict === "allowed") admitted.push(now)
      }
      expect(broken).toEqual([])
      expect(windowViolation(perMinute, admitted)).toBeUndefined()
    },
    numRuns
  )

  prop(
    "describe reads a verdict back as the same Decision decide made, from the usage and ban after it",
    [arbScenario(300)],
    ([{ ban, limits, start, times }]) => {
      const steps = simulate(limits, start, times, ban)
      const described = steps.map(({ decision, now, standing, usage }) =>
        LimitDecision.describe(limits, usage, now, decision.verdict, decision.retryAfterMillis, standing.bannedUntil)
      )
      expectSameSequence(described, steps.map((step) => step.decision))
    },
    numRuns
  )

  // Any usage a store may hand back: a bucket last refilled up to two minutes ago (often just now, often
  // nearly empty), a daily count of today or of an earlier day (as restored after a restart).
  const arbStoredUsage = arbLimits.chain((limits) =>
    fc.record({
      limits: fc.constant(limits),
      now: arbStart,
      sinceRefill: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 * MINUTE })),
      units: fc.oneof(fc.integer({ min: 0, max: TokenBucket.UNIT - 1 }), fc.integer({ min: 0, max: limits.perMinute * TokenBucket.UNIT })),
      daysAgo: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 })),
      used: fc.integer({ min: 0, max: limits.perDay }),
      bannedFor: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: DAY_MS }))
    })
  )

  prop(
    "a decision depends on the stored usage only as of now: the same usage refilled and rolled to now decides the same",
    [arbStoredUsage, arbBanOptions],
    ([{ bannedFor, daysAgo, limits, now, sinceRefill, units, used }, ban]) => {
      const usage: LimitDecision.AccountUsage = {
        bucket: { units, at: now - sinceRefill },
        quota: { day: DailyQuota.dayOf(now) - daysAgo, used }
      }
      const asOfNow: LimitDecision.AccountUsage = {
        bucket: TokenBucket.refill(usage.bucket, limits.perMinute, now),
        quota: DailyQuota.roll(usage.quota, now)
      }
      const standing = bannedFor === 0 ? BanPolicy.CLEAN : { ...BanPolicy.CLEAN, bannedUntil: now + bannedFor, bans: 1, lastBanAt: now }
      expect(LimitDecision.decide(limits, usage, standing, now, 1, ban)).toEqual(
        LimitDecision.decide(limits, asOfNow, standing, now, 1, ban)
      )
    },
    numRuns
  )
})
