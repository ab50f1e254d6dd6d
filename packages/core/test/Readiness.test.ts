/**
 * `Readiness.probe`: absent ports are up; at most one probe in flight, whatever the number of
 * callers, its answer reused for `reuse` (by the Clock) and asked again after; a caller that goes
 * away does not cancel the probe for the others; a check that hangs or throws is down.
 */
import { TestClock } from "effect/testing"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import * as Readiness from "../src/Readiness.js"

/**
 * Lets every fiber of `fibers` run until it waits (for the probe): each forked fiber runs its first
 * steps on the scheduler's next turns, and none of them may be done yet.
 */
const allWaiting = (fibers: ReadonlyArray<Fiber.Fiber<unknown>>) =>
  Effect.gen(function*() {
    yield* Effect.repeat(Effect.yieldNow, { times: fibers.length + 10 })
    expect(fibers.every((fiber) => fiber.pollUnsafe() === undefined)).toBe(true)
  })

const DEGRADED: Readiness.Check = { state: "degraded", reason: "limits per instance" }

const gatedStore = Effect.gen(function*() {
  const gate = yield* Deferred.make<void>()
  const probes = { started: 0 }
  const layer = Layer.succeed(Readiness.StoreReadiness, {
    check: Effect.suspend(() => {
      probes.started++
      return Effect.as(Deferred.await(gate), Readiness.UP)
    })
  })
  return { gate, probes, layer }
})

describe("Readiness.probe", () => {
  it.effect("with no port in the context, everything is up", () =>
    Effect.gen(function*() {
      const probe = yield* Readiness.probe()
      expect(yield* probe).toEqual({ ready: true, checks: { store: "up", rateLimiter: "up" }, reasons: [], reasonOf: { store: undefined, rateLimiter: undefined } })
    }))

  it.effect("any number of callers while a probe is in flight share it; the answer is reused for `reuse`, then asked again", () =>
    Effect.gen(function*() {
      const { gate, probes, layer } = yield* gatedStore
      const probe = yield* Effect.provide(Readiness.probe({ reuse: "1 second" }), layer)
      const callers = yield* Effect.all(Array.from({ length: 100 }, () => Effect.forkChild(probe)))
      yield* allWaiting(callers)
      expect(probes.started).toBe(1)
      yield* Deferred.succeed(gate, undefined)
      const reports = yield* Effect.all(callers.map(Fiber.join))
      expect(reports.every((r) => r.ready)).toBe(true)
      yield* TestClock.adjust("999 millis")
      yield* probe
      expect(probes.started).toBe(1)
      yield* TestClock.adjust("1 millis")
      yield* probe
      expect(probes.started).toBe(2)
    }))

  it.effect("a caller that goes away does not cancel the probe the others wait for", () =>
    Effect.gen(function*() {
      const { gate, probes, layer } = yield* gatedStore
      const probe = yield* Effect.provide(Readiness.probe(), layer)
      const first = yield* Effect.forkChild(probe)
      const second = yield* Effect.forkChild(probe)
      yield* allWaiting([first, second])
      yield* Fiber.interrupt(first)
      yield* Deferred.succeed(gate, undefined)
      expect((yield* Fiber.join(second)).ready).toBe(true)
      expect(probes.started).toBe(1)
    }))

  it.effect("a check past its bound, or one that throws, is down; a degraded one keeps the instance ready", () =>
    Effect.gen(function*() {
      const hanging = yield* Effect.provide(
        Readiness.probe({ timeout: "2 seconds" }),
        Layer.succeed(Readiness.StoreReadiness, { check: Effect.never })
      )
      const waiting = yield* Effect.forkChild(hanging)
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(waiting)).toEqual({
        ready: false,
        checks: { store: "down", rateLimiter: "up" },
        reasons: ["the store did not answer within 2s"],
        reasonOf: { store: "the store did not answer within 2s", rateLimiter: undefined }
      })
      const throwing = yield* Effect.provide(
        Readiness.probe(),
        Layer.merge(
          Layer.succeed(Readiness.StoreReadiness, { check: Effect.die(new Error("boom")) }),
          Layer.succeed(Readiness.LimiterReadiness, { check: Effect.succeed(DEGRADED) })
        )
      )
      expect(yield* throwing).toEqual({
        ready: false,
        checks: { store: "down", rateLimiter: "degraded" },
        reasons: ["the store check failed", "limits per instance"],
        reasonOf: { store: "the store check failed", rateLimiter: "limits per instance" }
      })
      const degraded = yield* Effect.provide(
        Readiness.probe(),
        Layer.succeed(Readiness.LimiterReadiness, { check: Effect.succeed(DEGRADED) })
      )
      expect((yield* degraded).ready).toBe(true)
    }))
})
