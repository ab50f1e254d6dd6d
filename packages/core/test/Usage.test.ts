import * as fc from "fast-check"
import * as Clock from "effect/Clock"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Result, Exit, Layer, Scope } from "effect"
import { Errors, type LimitDecision, SecureRandom, Usage, UsageRange, UsageStore } from "@petstore/core"
import * as MovableClock from "./support/MovableClock.js"

const NOW = Date.UTC(2026, 10, 26, 10, 30)

/** A store that fails some flushes: before writing (nothing stored) or after (stored, but the answer lost). */
const flaky = (store: UsageStore.UsageStore["Service"], faults: Array<"before" | "after" | "none">): UsageStore.UsageStore["Service"] => ({
  ...store,
  flush: (batch) =>
    Effect.suspend(() => {
      const fault = faults.shift() ?? "none"
      const lost = Effect.fail(new Errors.StoreUnavailable({ cause: `fault ${fault}` }))
      if (fault === "before") return lost
      return fault === "after" ? Effect.andThen(store.flush(batch), lost) : store.flush(batch)
    })
})

describe("Usage", () => {
  it.effect("counts are exact once flushed: flushes that fail before or after writing are retried without counting twice", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(fc.constantFrom<LimitDecision.Verdict>("allowed", "rate_limited", "daily_quota_exceeded", "key_banned"), { maxLength: 20 }), { maxLength: 6 }),
          fc.array(fc.constantFrom<"before" | "after" | "none">("before", "after", "none"), { maxLength: 12 }),
          async (rounds, faults) => {
            const memory = UsageStore.makeMemory()
            const movable = MovableClock.make()
            movable.set(NOW)
            const program = Effect.gen(function*() {
              const scope = yield* Scope.make()
              const usage = yield* Layer.buildWithScope(
                Usage.Usage.layer({ flushMillis: 3_600_000 }).pipe(
                  Layer.provide(Layer.succeed(UsageStore.UsageStore, flaky(memory, faults))),
                  Layer.provide(SecureRandom.SecureRandom.Live)
                ),
                scope
              ).pipe(Effect.map(Context.get(Usage.Usage)))
              for (const round of rounds) {
                for (const verdict of round) usage.record("acc_a", "key_1", verdict, 200, NOW)
                yield* Effect.exit(usage.flush)
              }
              // Until every batch is written (each fault is used once).
              while (Exit.isFailure(yield* Effect.exit(usage.flush))) { /* retry */ }
              yield* Scope.close(scope, Exit.void)
              const range = Result.getOrThrow(UsageRange.resolve({ granularity: "hour", now: NOW }))
              const stored = yield* memory.read("acc_a", "hour", range.from, range.to)
              const total = UsageRange.fill(range, stored).reduce((sum, b) => UsageStore.add(sum, b.counts), UsageStore.zero)
              const all = rounds.flat()
              expect(total).toStrictEqual({
                allowed: all.filter((v) => v === "allowed").length,
                rateLimited: all.filter((v) => v === "rate_limited").length,
                quotaExceeded: all.filter((v) => v === "daily_quota_exceeded").length,
                banned: all.filter((v) => v === "key_banned").length,
                clientErrors: 0,
                serverErrors: 0
              })
            })
            await Effect.runPromise(Effect.provideService(program, Clock.Clock, movable.clock))
          }
        ),
        { numRuns: 40 }
      )
    ))

  it.effect("what is counted is written when the layer closes, without waiting for the interval", () =>
    Effect.gen(function*() {
      const memory = UsageStore.makeMemory()
      const movable = MovableClock.make()
      movable.set(NOW)
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Usage.Usage.layer({ flushMillis: 3_600_000 }).pipe(
          Layer.provide(Layer.succeed(UsageStore.UsageStore, memory)),
          Layer.provide(SecureRandom.SecureRandom.Live)
        ),
        scope
      ).pipe(Effect.provideService(Clock.Clock, movable.clock))
      const usage = Context.get(context, Usage.Usage)
      usage.record("acc_a", "key_1", "allowed", 500, NOW)
      usage.record("acc_a", "key_2", "rate_limited", 429, NOW)
      yield* Scope.close(scope, Exit.void)
      const stored = yield* memory.read("acc_a", "hour", NOW - UsageStore.HOUR_MILLIS, NOW + UsageStore.HOUR_MILLIS)
      expect(stored.map((b) => [b.keyId, b.counts.allowed, b.counts.serverErrors, b.counts.rateLimited]).sort()).toStrictEqual([
        ["key_1", 1, 1, 0],
        ["key_2", 0, 0, 1]
      ])
    }))

  it.effect("the sweep removes hourly buckets past their retention and keeps daily ones until theirs", () =>
    Effect.gen(function*() {
      const memory = UsageStore.makeMemory()
      const old = NOW - 91 * UsageStore.DAY_MILLIS
      yield* memory.flush({
        instanceId: "i",
        seq: 1,
        at: old,
        rows: [{ accountId: "acc_a", keyId: "key_1", hour: UsageStore.bucketStart("hour", old), counts: { ...UsageStore.zero, allowed: 3 } }]
      })
      const movable = MovableClock.make()
      movable.set(NOW)
      yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(
          Usage.Usage.layer({}).pipe(
            Layer.provide(Layer.succeed(UsageStore.UsageStore, memory)),
            Layer.provide(SecureRandom.SecureRandom.Live)
          )
        )
        yield* Context.get(context, Usage.Usage).sweep
      })).pipe(Effect.provideService(Clock.Clock, movable.clock))
      const dayStart = UsageStore.bucketStart("day", old)
      expect(yield* memory.read("acc_a", "hour", dayStart, dayStart + UsageStore.DAY_MILLIS)).toStrictEqual([])
      expect((yield* memory.read("acc_a", "day", dayStart, dayStart + UsageStore.DAY_MILLIS)).map((b) => b.counts.allowed)).toStrictEqual([3])
    }))

  it.effect("while the store does not answer, counts wait up to maxUnsentRows; past it the oldest batches go, never the request", () =>
    Effect.gen(function*() {
      const memory = UsageStore.makeMemory()
      let down = true
      const store: UsageStore.UsageStore["Service"] = {
        ...memory,
        flush: (batch) => (down ? Effect.fail(new Errors.StoreUnavailable({ cause: "down" })) : memory.flush(batch))
      }
      const movable = MovableClock.make()
      movable.set(NOW)
      const scope = yield* Scope.make()
      const usage = yield* Layer.buildWithScope(
        Usage.Usage.layer({ flushMillis: 3_600_000, maxUnsentRows: 100 }).pipe(
          Layer.provide(Layer.succeed(UsageStore.UsageStore, store)),
          Layer.provide(SecureRandom.SecureRandom.Live)
        ),
        scope
      ).pipe(Effect.map(Context.get(Usage.Usage)), Effect.provideService(Clock.Clock, movable.clock))
      const old = 90
      for (let i = 0; i < old; i++) usage.record("acc_old", `key_${i}`, "allowed", 200, NOW)
      expect(Exit.isFailure(yield* Effect.exit(usage.flush))).toBe(true)
      for (let i = 0; i < 20; i++) usage.record("acc_new", `key_${i}`, "allowed", 200, NOW)
      expect(Exit.isFailure(yield* Effect.exit(usage.flush))).toBe(true)
      down = false
      yield* usage.flush
      yield* Scope.close(scope, Exit.void)
      const hour = UsageStore.bucketStart("hour", NOW)
      expect((yield* memory.read("acc_old", "hour", hour, hour + UsageStore.HOUR_MILLIS)).length).toBe(0)
      expect((yield* memory.read("acc_new", "hour", hour, hour + UsageStore.HOUR_MILLIS)).length).toBe(20)
    }))
})
