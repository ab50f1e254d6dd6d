/**
 * Laws every `RateLimiter` implementation obeys, at the times its callers give (`admit(subject, now)`):
 * it decides exactly as the core's pure decision over each account's, key's and address's own
 * history, so one account's traffic never changes another's decisions and a refused request
 * consumes nothing. An implementation that keeps its state elsewhere (Redis) passes the same laws.
 *
 * @since 1.0.0
 */
import { describe, expect } from "@effect/vitest"
import { Effect, FastCheck as fc, type Scope } from "effect"
import { BanPolicy, LimitDecision, type Plan, type RateLimiter, TokenBucket } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { numRuns, property } from "./internal/support.js"

type Limiter = RateLimiter.RateLimiter["Type"]

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
    memoryMillis: fc.integer({ min: 0, max: 60 * MINUTE })
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

const play = (limiter: Limiter, traffic: Traffic, include: (r: Request) => boolean = () => true) =>
  Effect.forEach(arrivals(traffic).filter(({ request }) => include(request)), ({ now, request }) =>
    request.failedAuth
      ? limiter.admitFailedAuth(`address-${request.account}`, now)
      : limiter.admit({ accountId: request.account, keyId: `${request.account}-${request.key}`, limits: traffic.limits[request.account] }, now))

/**
 * Registers the laws of `RateLimiter` for the implementation `make` builds with the given options
 * (each run builds a fresh, empty limiter).
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
