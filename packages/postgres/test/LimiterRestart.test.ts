/**
 * `LimiterPersistence` on PostgreSQL across a restart: the daily counts and bans one process wrote
 * are what the next process on the database starts from (the per-minute bucket starts full), so a
 * restart never hands a key a fresh day or lifts a ban.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { MessageProcessor, RateLimiter } from "@petstore/core"
import * as Postgres from "@petstore/postgres"
import * as MovableClock from "../../core/test/support/MovableClock.js"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()

/** One process's rate limiter on `url` (the whole pet store, as the server builds it), closed when `f` ends. */
const process = <A, E>(url: string, f: (limiter: RateLimiter.RateLimiter["Type"]) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.provide(
    Effect.flatMap(RateLimiter.RateLimiter, f),
    Postgres.layerPetstore({ url, poolSize: 2 }).pipe(Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly))
  ))

if ("skip" in database) {
  describe.skip(`limiter persistence on PostgreSQL (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("limiter persistence on PostgreSQL", () => {
    it.live("a restart keeps the day's counts and the bans; the per-minute bucket starts full", () =>
      Effect.gen(function*() {
        const url = yield* Effect.promise(() => database.freshUrl())
        const quota = { accountId: "acc_quota", keyId: "key_quota", limits: { perMinute: 4, perDay: 6 } }
        const early = { accountId: "acc_early", keyId: "key_early", limits: { perMinute: 1, perDay: 1_000 } }
        const { advance, clock } = MovableClock.make()
        yield* Effect.withClock(
          process(url, (limiter) =>
            Effect.gen(function*() {
              for (let i = 0; i < 4; i++) expect((yield* limiter.admit(quota)).verdict).toBe("allowed")
              expect((yield* limiter.admit(quota)).verdict).toBe("rate_limited") // the minute's bucket is empty
              // Told to wait, then, past the grace that follows, more early retries than the threshold: banned.
              expect((yield* limiter.admit(early)).verdict).toBe("allowed")
              expect((yield* limiter.admit(early)).verdict).toBe("rate_limited") // the wait, and its grace, begin
              advance(RateLimiter.DEFAULT_OPTIONS.ban.graceMillis)
              const retries = []
              for (let i = 0; i <= RateLimiter.DEFAULT_OPTIONS.ban.threshold + 1; i++) retries.push((yield* limiter.admit(early)).verdict)
              expect(retries.at(-1)).toBe("key_banned")
            })),
          clock
        )
        yield* process(url, (limiter) =>
          Effect.gen(function*() {
            // 4 of 6 used before the restart: 2 left today, though the bucket (4) is full again.
            const verdicts = []
            for (let i = 0; i < 3; i++) verdicts.push((yield* limiter.admit(quota)).verdict)
            expect(verdicts).toStrictEqual(["allowed", "allowed", "daily_quota_exceeded"])
            expect((yield* limiter.admit(early)).verdict).toBe("key_banned")
          }))
      }), 30_000)
  })
}
