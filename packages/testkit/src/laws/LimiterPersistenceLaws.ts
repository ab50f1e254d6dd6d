/**
 * Laws of `LimiterPersistence` over a `LimiterStateStore`: the rate limiter in process memory, its
 * daily counts and bans written behind to the store, read back when the next process starts. A
 * restart never hands an account a fresh day (what a day allows before and after a restart adds up
 * to its quota), a later day starts afresh, a ban outlives a restart, and what a process decided
 * reaches the store within the flush interval without a shutdown (what a crash keeps). The
 * per-minute bucket is in memory only: it starts full.
 *
 * @since 1.0.0
 */
import * as fc from "fast-check"
import { TestClock } from "effect/testing"
import { describe, expect } from "@effect/vitest"
import { Clock, Context, Effect, Layer, type Scope } from "effect"
import { DailyQuota, LimiterPersistence, LimiterStateStore, RateLimiter } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { base62, instant, numRuns, property } from "./internal/support.js"

/**
 * How to reach the store under test: `database` makes a new, empty database (for the life of the
 * scope) and `stateStore` opens the limiter's state store on it, as one process would.
 *
 * @category models
 */
export interface LimiterPersistenceStore<D, E1, E2> {
  readonly database: Effect.Effect<D, E1, Scope.Scope>
  readonly stateStore: (database: D) => Layer.Layer<LimiterStateStore.LimiterStateStore, E2>
}

/** The write-behind interval the laws give (short, so a law waits little for the write it needs). */
const FLUSH_MILLIS = 50
/** How long a law waits for a write behind: tries every 50 ms, for 15 s. */
const WRITE_TRIES = 300
const DAY = 86_400_000

const accountId = base62(6).map((s) => `acc_${s}`)

/** An account with a daily quota of a few requests, and how many it asks before the restart. */
const usage = fc.record({ perDay: fc.integer({ min: 1, max: 6 }), before: fc.integer({ min: 0, max: 8 }) })

/**
 * Registers the laws of `LimiterPersistence` on the state store `store` opens.
 *
 * @category law suites
 * @since 1.0.0
 */
export const limiterPersistenceLaws = <D, E1, E2>(
  name: string,
  store: LimiterPersistenceStore<D, E1, E2>,
  options?: LawSuiteOptions
): void => {
  const runs = numRuns(options, 10)

  /** One process on `database`, as the server builds it: the limiter in memory, written behind; closed when `f` ends. */
  const process = <A, E>(database: D, f: (limiter: RateLimiter.RateLimiter["Service"]) => Effect.Effect<A, E>) =>
    Effect.scoped(Effect.provide(
      Effect.flatMap(RateLimiter.RateLimiter, f),
      LimiterPersistence.layer({ flushMillis: FLUSH_MILLIS }).pipe(
        Layer.provideMerge(RateLimiter.RateLimiter.layerMemory()),
        Layer.provide(store.stateStore(database))
      )
    ))

  const subjectOf = (id: string, perDay: number, perMinute = 1_000) => ({
    accountId: id,
    keyId: `key_${id.slice(4)}`,
    limits: { perMinute, perDay }
  })

  const admitted = (limiter: RateLimiter.RateLimiter["Service"], subject: ReturnType<typeof subjectOf>, times: number) =>
    Effect.map(
      Effect.forEach(Array.from({ length: times }), () => limiter.admit(subject)),
      (decisions) => decisions.map((d) => d.verdict)
    )

  describe(`limiter persistence laws: ${name}`, () => {
    property(
      "a restart never hands an account a fresh day: what the day allows before and after it adds up to the quota; a later day starts afresh",
      [fc.uniqueArray(fc.tuple(accountId, usage), { minLength: 1, maxLength: 3, selector: ([id]) => id }), instant, fc.boolean()],
      ([accounts, at, nextDay]) =>
        Effect.gen(function*() {
          yield* TestClock.setTime(at)
          const database = yield* store.database
          const before = yield* process(database, (limiter) =>
            Effect.forEach(accounts, ([id, { before, perDay }]) => admitted(limiter, subjectOf(id, perDay), before)))
          if (nextDay) yield* TestClock.adjust(DAY)
          const after = yield* process(database, (limiter) =>
            Effect.forEach(accounts, ([id, { perDay }]) => admitted(limiter, subjectOf(id, perDay), perDay + 2)))
          accounts.forEach(([, { before: asked, perDay }], i) => {
            const allowedBefore = before[i]!.filter((v) => v === "allowed").length
            expect(allowedBefore).toBe(Math.min(asked, perDay))
            const left = nextDay ? perDay : perDay - allowedBefore
            expect(after[i]).toStrictEqual([
              ...Array.from({ length: left }, () => "allowed"),
              ...Array.from({ length: perDay + 2 - left }, () => "daily_quota_exceeded")
            ])
          })
        }),
      runs
    )

    property(
      "a key banned before a restart is banned after it; the per-minute bucket starts full for the others",
      [fc.uniqueArray(accountId, { minLength: 2, maxLength: 2 }), instant],
      ([[bannedId, otherId], at]) =>
        Effect.gen(function*() {
          yield* TestClock.setTime(at)
          const database = yield* store.database
          const banned = subjectOf(bannedId!, 1_000, 1)
          const other = subjectOf(otherId!, 1_000, 2)
          const { ban } = RateLimiter.DEFAULT_OPTIONS
          yield* process(database, (limiter) =>
            Effect.gen(function*() {
              expect(yield* admitted(limiter, other, 2)).toStrictEqual(["allowed", "allowed"]) // its bucket is empty
              // Told to wait, then, past the grace that follows, more early retries than the threshold: banned.
              expect(yield* admitted(limiter, banned, 2)).toStrictEqual(["allowed", "rate_limited"])
              yield* TestClock.adjust(ban.graceMillis)
              expect((yield* admitted(limiter, banned, ban.threshold + 2)).at(-1)).toBe("key_banned")
            }))
          yield* process(database, (limiter) =>
            Effect.gen(function*() {
              expect(yield* admitted(limiter, banned, 1)).toStrictEqual(["key_banned"])
              expect(yield* admitted(limiter, other, 2)).toStrictEqual(["allowed", "allowed"])
            }))
        }),
      Math.min(runs, 5)
    )

    property(
      "what a process decided reaches the store within the flush interval, without a shutdown (what a crash keeps)",
      [accountId, fc.integer({ min: 1, max: 8 }), instant],
      ([id, asked, at]) =>
        Effect.gen(function*() {
          yield* TestClock.setTime(at)
          const database = yield* store.database
          const today = DailyQuota.dayOf(at)
          // Another reader of the same database, open while the process runs, as after a crash.
          const reader = Context.get(yield* Layer.build(store.stateStore(database)), LimiterStateStore.LimiterStateStore)
          yield* process(database, (limiter) =>
            Effect.gen(function*() {
              yield* admitted(limiter, subjectOf(id, 100), asked)
              // Waits for the event (the count written), a bounded number of times, on the live clock.
              let used = 0
              for (let i = 0; i < WRITE_TRIES && used < asked; i++) {
                if (i > 0) yield* Effect.provideService(Effect.sleep("50 millis"), Clock.Clock, Clock.Clock.defaultValue())
                const state = yield* reader.load(today, at, at - DAY)
                used = state.quotas.find(([account]) => account === id)?.[1].used ?? 0
              }
              expect(used).toBe(asked)
            }))
        }),
      Math.min(runs, 5)
    )
  })
}
