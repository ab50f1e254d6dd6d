/**
 * The `RateLimiter` port on Redis, shared by every instance: each decision is one atomic Lua script
 * in one round trip (`LimiterScripts`), at Redis's time, so N instances admit exactly what one
 * would. Keys, under a prefix (`petstore:`):
 * - `{a:<account>}:usage`: the account's minute bucket and daily count (all its keys together), and
 *   each of its keys' ban standing: a decision touches this one key (on Redis Cluster, one slot, and
 *   served while the slot migrates);
 * - `{ip:<address>}:auth`: the failed-authentication bucket of a client address.
 * Every key has a TTL: it lives only while its state differs from a fresh one.
 *
 * When Redis cannot be reached, by default (`failure: "open"`) each instance keeps limiting in its
 * own memory at the plan's numbers (so N instances admit up to N× a plan while Redis is away), says
 * so once in the log, and goes back to Redis by itself as soon as it answers again (looked at every
 * 250 ms). With `failure: "closed"` a request whose decision needs Redis fails (503) instead.
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { Errors, LimitDecision, RateLimiter, Readiness } from "@petstore/core"
import * as LimiterScripts from "./LimiterScripts.js"
import { Redis, type RedisOptions, type RedisUnavailable, layer as layerRedis, script } from "./RedisConnection.js"

/** The Redis connection and the prefix of the limiter's keys. */
export interface RateLimiterRedisOptions extends RedisOptions {
  /** Put before every key (default `petstore:`), so several deployments can share one Redis. */
  readonly prefix?: string | undefined
  /** `open` (default): limit in memory while Redis is away; `closed`: answer 503 instead. */
  readonly failure?: "open" | "closed" | undefined
  /**
   * Whose clock decides: `redis` (default, `TIME`, so the instances' clocks do not matter) or
   * `caller` (the time of the layer's Clock when the decision is made; for tests that move time).
   */
  readonly clock?: "redis" | "caller" | undefined
  readonly limiter?: Partial<RateLimiter.RateLimiterOptions> | undefined
}

const ADMIT = script(LimiterScripts.ADMIT)
const ADMIT_ADDRESS = script(LimiterScripts.ADMIT_ADDRESS)
const VERDICTS: ReadonlyArray<LimitDecision.Verdict> = ["allowed", "rate_limited", "daily_quota_exceeded", "key_banned"]
const NO_CHANGES: RateLimiter.DurableLimiterState = { quotas: [], standings: [] }
const PROBE_EVERY = Duration.millis(250)

/** The key of an account's usage and of its keys' standing. */
export const accountKey = (prefix: string, accountId: string) => `${prefix}{a:${accountId}}:usage`

/** The key of an address's failed authentications. */
export const addressKey = (prefix: string, address: string) => `${prefix}{ip:${address}}:auth`

/**
 * Whether Redis runs the limiter's scripts: one decision on a key no client address can have, with
 * room to spare (a PING would also answer while scripts fail: out of memory, a read-only replica).
 */
const scriptsRun = (redis: Redis["Service"], prefix: string): Effect.Effect<boolean> =>
  redis.run(ADMIT_ADDRESS, [addressKey(prefix, "probe")], [1_000_000, -1]).pipe(
    Effect.as(true),
    Effect.orElseSucceed(() => false)
  )

/**
 * The limiter's readiness: up while Redis runs its scripts. While it does not, `failure: "open"`
 * still serves (limits in process memory), so the instance is degraded, not down; `closed` answers
 * 503 to limited requests, so it is down.
 *
 * @category layers
 */
export const readiness = (
  options: Pick<RateLimiterRedisOptions, "prefix" | "failure">
): Layer.Layer<Readiness.LimiterReadiness, never, Redis> =>
  Layer.effect(
    Readiness.LimiterReadiness,
    Effect.map(Redis, (redis) => {
      const away: Readiness.Check = options.failure === "closed"
        ? { state: "down", reason: "the rate limiter (Redis) cannot be reached" }
        : { state: "degraded", reason: "the rate limiter (Redis) cannot be reached; limits apply per instance meanwhile" }
      return { check: Effect.map(scriptsRun(redis, options.prefix ?? "petstore:"), (runs) => runs ? Readiness.UP : away) }
    })
  )

/** The rate limiter on a Redis connection. @category constructors */
export const make = (
  options: RateLimiterRedisOptions
): Effect.Effect<RateLimiter.RateLimiter["Service"], never, Redis | Scope.Scope> =>
  Effect.gen(function*() {
    const redis = yield* Redis
    const settings = { ...RateLimiter.DEFAULT_OPTIONS, ...options.limiter }
    const ban = settings.ban
    const prefix = options.prefix ?? "petstore:"
    const callerClock = options.clock === "caller"
    const failOpen = options.failure !== "closed"
    // What decides while Redis is away (fail-open): this process's memory, at the plan's numbers.
    const clock = yield* Clock.Clock
    const local = RateLimiter.makeMemory(settings, clock)
    let shared = true

    // -1 asks the script to read Redis's `TIME` (no step of its own then: a decision is one call).
    const timeArg = Effect.sync(() => clock.currentTimeMillisUnsafe())
    const atTime = <A, E>(call: (at: number) => Effect.Effect<A, E>): Effect.Effect<A, E> =>
      callerClock ? Effect.flatMap(timeArg, call) : call(-1)

    // Looks at Redis every 250 ms while it is away; back to it as soon as it runs a script again.
    const scriptRuns = scriptsRun(redis, prefix)
    const probe = Effect.gen(function*() {
      while (!(yield* scriptRuns)) yield* Effect.sleep(PROBE_EVERY)
      shared = true
      yield* Effect.logInfo(`rate limiter: Redis at ${redis.where} answers again; limits are shared again`)
    }).pipe(Effect.provideService(Clock.Clock, Clock.Clock.defaultValue()))
    const scope = yield* Effect.scope

    /** A shared decision, or what an outage makes of it (local decision, or 503). */
    const decide = <A>(
      shared$: Effect.Effect<A, RedisUnavailable>,
      fallback: () => Effect.Effect<A, Errors.StoreUnavailable>
    ): Effect.Effect<A, Errors.StoreUnavailable> =>
      !shared && failOpen
        ? fallback()
        : Effect.catchCause(shared$, (cause) => {
          // A defect passes as it is; a failure to reach Redis is what the setting makes of it.
          const found = Cause.findError(cause)
          if (Result.isFailure(found)) return Exit.failCause(found.failure)
          const error = found.success
          if (!failOpen) return Effect.fail(new Errors.StoreUnavailable({ cause: new Error(error.message) }))
          if (!shared) return fallback()
          shared = false
          return Effect.logWarning(
            `rate limiter: ${error.message}; limiting in this process's memory (each instance on its own) until Redis answers again`
          ).pipe(Effect.andThen(Effect.forkIn(probe, scope)), Effect.andThen(fallback()))
        })

    return RateLimiter.RateLimiter.of({
      admit: (subject) =>
        decide(
          atTime((at) => {
            const { accountId, keyId, limits } = subject
            return Effect.map(
              redis.run(ADMIT, [accountKey(prefix, accountId)], [
                limits.perMinute,
                limits.perDay,
                1,
                at,
                ban.threshold,
                ban.baseMillis,
                ban.maxMillis,
                ban.memoryMillis,
                ban.graceMillis
              ], [keyId]),
              ([verdict, wait, units, refilledAt, day, used, bannedUntil, decidedAt]) =>
                LimitDecision.describe(
                  limits,
                  { bucket: { units: units!, at: refilledAt! }, quota: { day: day!, used: used! } },
                  decidedAt!,
                  VERDICTS[verdict!]!,
                  wait!,
                  bannedUntil!
                )
            )
          }),
          () => local.admit(subject)
        ),
      admitFailedAuth: (address) =>
        decide(
          atTime((at) =>
            Effect.map(
              redis.run(ADMIT_ADDRESS, [addressKey(prefix, address)], [settings.failedAuthPerMinute, at]),
              ([wait, units, refilledAt, decidedAt]) =>
                LimitDecision.describeAddress(settings.failedAuthPerMinute, { units: units!, at: refilledAt! }, decidedAt!, wait!)
            )),
          () => local.admitFailedAuth(address)
        ),
      // Redis keeps the state itself (with TTLs): nothing to write behind, nothing to restore.
      takeChanges: Effect.succeed(NO_CHANGES),
      restore: () => Effect.void
    })
  })

/**
 * The rate limiter on Redis and its readiness, with their own connection, for the life of the layer.
 *
 * @example
 * ```ts
 * import { RateLimiter } from "@petstore/core"
 * import * as Redis from "@petstore/redis"
 * import { Effect } from "effect"
 *
 * const subject = { accountId: "acc_1", keyId: "key_1", limits: { perMinute: 60, perDay: 10_000 } }
 * const decision = await Effect.runPromise(
 *   Effect.flatMap(RateLimiter.RateLimiter, (limiter) => limiter.admit(subject)).pipe(
 *     Effect.provide(Redis.layer({ url: "redis://127.0.0.1:6379", prefix: "petstore:" }))
 *   )
 * )
 * console.log(decision.verdict)
 * ```
 */
export const layer = (options: RateLimiterRedisOptions): Layer.Layer<RateLimiter.RateLimiter | Readiness.LimiterReadiness> =>
  Layer.merge(Layer.effect(RateLimiter.RateLimiter, make(options)), readiness(options)).pipe(Layer.provide(layerRedis(options)))

