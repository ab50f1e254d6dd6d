/**
 * Laws every `RateLimiter` implementation obeys, at the time of its Clock (the `TestClock`, set before each call):
 * it decides exactly as the core's pure decision over each account's, key's and address's own
 * history, so one account's traffic never changes another's decisions and a refused request
 * consumes nothing; refused requests sent within the grace that follows a wait's first refusal never
 * ban, and more than the threshold after it do. An implementation that keeps its state elsewhere
 * (Redis) passes the same laws.
 *
 * @since 1.0.0
 */
import * as fc from "fast-check"
import { TestClock } from "effect/testing"
import { describe, expect } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import { BanPolicy, LimitDecision, type Plan, type RateLimiter, TokenBucket } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { numRuns, property } from "./internal/support.js"

type Limiter = RateLimiter.RateLimiter["Service"]

const MINUTE = 60_000
const DAY = 86_400_000

// Small plans, short bans and a short memory, so that limits, bans and their ends all happen.
const arbPlan: fc.Arbitrary<Plan.PlanLimits> = fc.record({
  perMinute: fc.integer({ min: 1, max: 20 }),
  perDay: fc.integer({ min: 1, max: 200 })
})
const arbOptions: fc.Arbitrary<RateLimiter.RateLimiterOptions> = fc.record({
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
type Request = typeof arbRequest extends fc.Arbitrary<infer A> ? A : never

/** Requests with their instants: bursts at one instant, gaps of seconds, minutes, and across a UTC midnight. */
const arbTraffic = fc.record({
  limits: fc.record({ A: arbPlan, B: arbPlan }),
  options: arbOptions,
  start: fc.integer({ min: 19_000, max: 21_000 }).chain((day) =>
    fc.integer({ min: 1, max: 2 * 3_600_000 }).map((before) => (day + 1) * DAY - before)
  ),
  steps: fc.array(
    fc.record({
      gap: fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 1, max: 30 * MINUTE })),
      request: arbRequest,
      times: fc.integer({ min: 1, max: 5 })
    }),
    { minLength: 1, maxLength: 30 }
  )
})
type Traffic = typeof arbTraffic extends fc.Arbitrary<infer A> ? A : never

const arrivals = (traffic: Traffic) => {
  let now = traffic.start
  return traffic.steps.flatMap((step) => {
    now += step.gap
    return Array.from({ length: step.times }, () => ({ request: step.request, now }))
  })
}

/** `decision` taken at `now`: the `TestClock` set there first. */
const at = <A, E>(now: number, decision: Effect.Effect<A, E>) => Effect.andThen(TestClock.setTime(now), decision)

const play = (limiter: Limiter, traffic: Traffic, include: (r: Request) => boolean = () => true) =>
  Effect.forEach(arrivals(traffic).filter(({ request }) => include(request)), ({ now, request }) =>
    at(
      now,
      request.failedAuth
        ? limiter.admitFailedAuth(`address-${request.account}`)
        : limiter.admit({ accountId: request.account, keyId: `${request.account}-${request.key}`, limits: traffic.limits[request.account] })
    ))

/**
 * One key of a fresh account refused at `start` (noon UTC, so only a bucket of at most 20 a minute,
 * 3 s a token, or the daily quota is waited for), with a grace shorter than that wait, and instants
 * as fractions (in [0, 1)) of the grace or of the rest of the wait.
 */
const arbWait = fc.record({
  limits: arbPlan,
  options: arbOptions.chain((options) =>
    fc.integer({ min: 1, max: 2_000 }).map((graceMillis) => ({ ...options, ban: { ...options.ban, graceMillis } }))
  ),
  start: fc.integer({ min: 19_000, max: 21_000 }).chain((day) => fc.nat(3_600_000).map((ms) => day * DAY + DAY / 2 + ms)),
  inGrace: fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { maxLength: 30 }),
  afterGrace: fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 5, maxLength: 5 })
})
type Wait = typeof arbWait extends fc.Arbitrary<infer A> ? A : never

const REFUSED = ["rate_limited", "daily_quota_exceeded"]

/** Spends the account at `start` until the first refusal; its decision, and an `admit` for the key. */
const refuseAt = (limiter: Limiter, { limits, start }: Wait) =>
  Effect.gen(function*() {
    const admit = (now: number) => at(now, limiter.admit({ accountId: "A", keyId: "A-1", limits }))
    let first = yield* admit(start)
    while (first.verdict === "allowed") first = yield* admit(start)
    expect(REFUSED).toContain(first.verdict)
    return { first, admit }
  })

/** Instants within the grace that follows a refusal at `start`, in order. */
const withinGrace = ({ inGrace, options, start }: Wait) =>
  inGrace.map((f) => start + Math.floor(f * options.ban.graceMillis)).sort((a, b) => a - b)

/**
 * Registers the laws of `RateLimiter` for the implementation `make` builds with the given options
 * (each run builds a fresh, empty limiter, deciding at its Clock's time: the `TestClock`).
 *
 * @category law suites
 * @since 1.0.0
 */
export const rateLimiterLaws = <E>(
  name: string,
  make: (options: RateLimiter.RateLimiterOptions) => Effect.Effect<Limiter, E, Scope.Scope>,
  options?: LawSuiteOptions
): void => {
  const runs = numRuns(options, 50)

  describe(`RateLimiter laws: ${name}`, () => {
    property(
      "decides as the pure decision over each account's, key's and address's own history (a refused request consumes nothing)",
      [arbTraffic],
      ([traffic]) =>
        Effect.gen(function*() {
          const { ban, failedAuthPerMinute } = traffic.options
          const usage = new Map<string, LimitDecision.AccountUsage>()
          const standings = new Map<string, BanPolicy.KeyStanding>()
          const addresses = new Map<string, TokenBucket.TokenBucketState>()
          const expected = arrivals(traffic).map(({ now, request }) => {
            if (request.failedAuth) {
              const next = LimitDecision.decideAddress(
                failedAuthPerMinute,
                addresses.get(request.account) ?? TokenBucket.full(failedAuthPerMinute, now),
                now
              )
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
          const limiter = yield* make(traffic.options)
          expect(yield* play(limiter, traffic)).toStrictEqual(expected)
        }),
      runs
    )

    property(
      "refused requests within the grace after a wait's first refusal never ban, and a retry after Retry-After passes",
      [arbWait],
      ([wait]) =>
        Effect.gen(function*() {
          const { admit, first } = yield* refuseAt(yield* make(wait.options), wait)
          for (const now of withinGrace(wait)) expect(REFUSED).toContain((yield* admit(now)).verdict)
          const retryAt = wait.start + Math.ceil(first.retryAfterMillis / 1000) * 1000
          expect((yield* admit(retryAt)).verdict).toBe("allowed")
        }),
      runs
    )

    property(
      "more than threshold refused requests after the grace and before the instant to wait for ban the key",
      [arbWait],
      ([wait]) =>
        Effect.gen(function*() {
          const { ban } = wait.options
          const { admit, first } = yield* refuseAt(yield* make(wait.options), wait)
          for (const now of withinGrace(wait)) yield* admit(now)
          const graceEnd = wait.start + ban.graceMillis
          const early = wait.afterGrace.slice(0, ban.threshold + 1)
            .map((f) => graceEnd + Math.floor(f * (wait.start + first.retryAfterMillis - graceEnd)))
            .sort((a, b) => a - b)
          const banned: Array<boolean> = []
          for (const now of early) banned.push((yield* admit(now)).verdict === "key_banned")
          expect(banned).toStrictEqual([...Array(ban.threshold).fill(false), true])
        }),
      runs
    )

    property(
      "one account's traffic never changes another's decisions",
      [arbTraffic],
      ([traffic]) =>
        Effect.gen(function*() {
          const ofA = (r: Request) => r.account === "A"
          const alone = yield* play(yield* make(traffic.options), traffic, ofA)
          const together = yield* play(yield* make(traffic.options), traffic)
          const requests = arrivals(traffic).map(({ request }) => request)
          expect(together.filter((_, i) => ofA(requests[i]!))).toStrictEqual(alone)
        }),
      runs
    )
  })
}
