/**
 * The rate limiter on Redis. Its law: on any sequence of requests at any times, it decides exactly
 * what the in-memory limiter decides (same verdicts, waits, remaining counts and reset times), so
 * every law the memory limiter passes holds for it. Then what only Redis has: TTLs on every key, one
 * hash tag per account, one round trip per decision, a script reloaded after a Redis restart, and
 * what an outage does (fail open by default, closed when asked).
 */
import * as fc from "fast-check"
import { TestClock } from "effect/testing"
import * as Clock from "effect/Clock"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Context } from "effect"
import { RateLimiter } from "@petstore/core"
import * as Redis from "@petstore/redis"
import { rateLimiterLaws } from "@petstore/testkit/laws"
import * as RedisProcess from "./support/RedisProcess.js"
import * as TestRedis from "./support/TestRedis.js"

const redis = await TestRedis.make()

const BAN = { threshold: 3, baseMillis: 60_000, maxMillis: 240_000, memoryMillis: 600_000, graceMillis: 500 }
const OPTIONS: RateLimiter.RateLimiterOptions = { ban: BAN, failedAuthPerMinute: 4 }

/** A limiter on Redis under `prefix`, deciding at its Clock's time (the `TestClock`), for the life of the scope. */
const onRedis = (url: string, prefix: string, extra: Partial<Redis.RateLimiterRedis.RateLimiterRedisOptions> = {}) =>
  Effect.flatMap(
    Layer.build(Redis.layer({ url, prefix, clock: "caller", limiter: OPTIONS, commandTimeoutMillis: 1_000, ...extra })),
    (context) => Effect.succeed(Context.getUnsafe(context, RateLimiter.RateLimiter))
  )

type Event =
  | { readonly kind: "admit"; readonly account: number; readonly key: number; readonly dt: number }
  | { readonly kind: "auth"; readonly address: number; readonly dt: number }

const dt = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 2_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 120_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 26 * 3_600_000 }) }
)
const event: fc.Arbitrary<Event> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("admit" as const), account: fc.nat(2), key: fc.nat(1), dt }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("auth" as const), address: fc.nat(1), dt }) }
)
const plan = fc.record({ perMinute: fc.integer({ min: 1, max: 6 }), perDay: fc.integer({ min: 1, max: 30 }) })

if ("skip" in redis) {
  describe.skip(`rate limiter on Redis (${redis.skip})`, () => it("skipped", () => {}))
} else {
  // The laws every limiter passes, each run on a fresh key prefix, deciding at the times the law gives.
  rateLimiterLaws("redis", (options) => onRedis(redis.url, redis.freshPrefix(), { limiter: options }), { numRuns: 25 })

  describe("rate limiter on Redis", () => {
    it.effect("decides exactly what the in-memory limiter decides, on any requests at any times", () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(plan, { minLength: 3, maxLength: 3 }),
            fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
            fc.array(event, { minLength: 1, maxLength: 60 }),
            (plans, start, events) =>
              Effect.runPromise(Effect.scoped(Effect.gen(function*() {
                const prefix = redis.freshPrefix()
                const shared = yield* onRedis(redis.url, prefix)
                const memory = RateLimiter.makeMemory(OPTIONS, yield* Clock.Clock)
                let now = start
                for (const e of events) {
                  now += e.dt
                  yield* TestClock.setTime(now)
                  if (e.kind === "admit") {
                    const subject = { accountId: `acc_${e.account}`, keyId: `key_${e.account}_${e.key}`, limits: plans[e.account]! }
                    expect(yield* shared.admit(subject)).toStrictEqual(yield* memory.admit(subject))
                  } else {
                    const address = `192.0.2.${e.address}`
                    expect(yield* shared.admitFailedAuth(address)).toStrictEqual(yield* memory.admitFailedAuth(address))
                  }
                }
                // The decisions were Redis's (not a fallback to memory): its keys are there.
                expect((yield* Effect.promise(() => redis.keysUnder(prefix))).length).toBeGreaterThan(0)
              })).pipe(Effect.provide(TestClock.layer())))
          ),
          { numRuns: 40 }
        )
      ))

    it.effect("every key it writes has a TTL; an account's usage and its keys' standing are one key", () =>
      Effect.gen(function*() {
        const prefix = redis.freshPrefix()
        const limiter = yield* onRedis(redis.url, prefix)
        const now = Date.now()
        const subject = { accountId: "acc_tag", keyId: "key_tag", limits: { perMinute: 2, perDay: 100 } }
        // spends the bucket; a refusal starts a wait, and early requests after its grace earn a ban
        yield* TestClock.setTime(now)
        for (let i = 0; i < 3; i++) yield* limiter.admit(subject)
        yield* TestClock.setTime(now + BAN.graceMillis)
        for (let i = 0; i < 4; i++) yield* limiter.admit(subject)
        yield* limiter.admitFailedAuth("198.51.100.7")
        const keys = yield* Effect.promise(() => redis.keysUnder(prefix))
        // The key's ban standing is in its account's hash: one key per decision.
        expect(keys.map((k) => k.key).sort()).toStrictEqual([
          `${prefix}{a:acc_tag}:usage`,
          `${prefix}{ip:198.51.100.7}:auth`
        ])
        const fields = yield* Effect.promise(() => redis.client.hKeys(`${prefix}{a:acc_tag}:usage`))
        expect(fields).toEqual(expect.arrayContaining(["u", "n", "k:key_tag:b", "k:key_tag:c"]))
        for (const { ttl } of keys) expect(ttl).toBeGreaterThan(0)
      }))

    it.effect("decides at Redis's clock by default: every instance tells the same times", () =>
      Effect.gen(function*() {
        const limiter = yield* onRedis(redis.url, redis.freshPrefix(), { clock: "redis" })
        const subject = { accountId: "acc_clock", keyId: "key_clock", limits: { perMinute: 5, perDay: 100 } }
        const [seconds] = yield* Effect.promise(() => redis.client.sendCommand(["TIME"]) as Promise<[string, string]>)
        // An instance whose clock is a day off does not move the decision's time.
        yield* TestClock.setTime(Date.now() - 86_400_000)
        const decision = yield* limiter.admit(subject)
        expect(Math.abs(decision.at - Number(seconds) * 1000)).toBeLessThan(5_000)
      }))
  })

  describe.skipIf(!RedisProcess.availableOrFail())("rate limiter on a Redis of its own", () => {
    const own = Effect.acquireRelease(Effect.promise(() => RedisProcess.start()), (p) => Effect.promise(() => p.stop()))
    const subject = { accountId: "acc_x", keyId: "key_x", limits: { perMinute: 1_000, perDay: 100_000 } }

    it.effect("one round trip per decision: one EVALSHA, nothing else; after SCRIPT FLUSH it loads the script again", () =>
      Effect.gen(function*() {
        const server = yield* own
        const client = yield* Effect.acquireRelease(Effect.promise(() => TestRedis.connect(server.url)), (c) => Effect.promise(() => c.close()))
        const limiter = yield* onRedis(server.url, "t:")
        yield* limiter.admit(subject) // the first call may load the script
        yield* Effect.promise(() => client.configResetStat())
        for (let i = 0; i < 20; i++) yield* limiter.admit(subject)
        const stats = yield* Effect.promise(() => client.info("commandstats"))
        const calls = Object.fromEntries([...stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].map((m) => [m[1], Number(m[2])]))
        // Only what the limiter sent (EVALSHA) and this INFO itself; the script's own commands are counted too.
        expect(calls.evalsha).toBe(20)
        expect(calls.eval).toBeUndefined()
        yield* Effect.promise(() => client.scriptFlush())
        expect((yield* limiter.admit(subject)).verdict).toBe("allowed")
      }))

    it.effect("fails open: while Redis is away each decision is made in memory at once, and shared again once it is back", () =>
      Effect.gen(function*() {
        const server = yield* own
        const limiter = yield* onRedis(server.url, "o:")
        expect((yield* limiter.admit(subject)).verdict).toBe("allowed")
        yield* Effect.promise(() => server.stop())
        for (let i = 0; i < 5; i++) {
          expect((yield* limiter.admit(subject)).verdict).toBe("allowed")
        }
        yield* Effect.promise(() => server.start())
        const client = yield* Effect.acquireRelease(Effect.promise(() => TestRedis.connect(server.url)), (c) => Effect.promise(() => c.close()))
        // Back within 5 s: decisions land in Redis again.
        let back = false
        for (let i = 0; i < 100 && !back; i++) {
          yield* limiter.admit(subject)
          back = (yield* Effect.promise(() => client.exists("o:{a:acc_x}:usage"))) === 1
          if (!back) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
        }
        expect(back).toBe(true)
      }))

    it.effect("fails closed when asked: while Redis is away a decision fails (503), and works again once it is back", () =>
      Effect.gen(function*() {
        const server = yield* own
        const limiter = yield* onRedis(server.url, "c:", { failure: "closed" })
        expect((yield* limiter.admit(subject)).verdict).toBe("allowed")
        yield* Effect.promise(() => server.stop())
        const failed = yield* Effect.exit(limiter.admit(subject))
        expect(Exit.isFailure(failed)).toBe(true)
        yield* Effect.promise(() => server.start())
        let ok = false
        for (let i = 0; i < 100 && !ok; i++) {
          ok = Exit.isSuccess(yield* Effect.exit(limiter.admit(subject)))
          if (!ok) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
        }
        expect(ok).toBe(true)
      }))
  })
}
