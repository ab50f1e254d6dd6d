/**
 * `Readiness.watch`: an outage is said once each way, whatever the number of refused requests: one
 * warning when the store stops answering, one line when it answers again (how long, how many
 * requests refused), found by the watcher without any further request; a refusal while everything
 * answers is said as a single warning with its reason. No line carries a cause (a stack).
 */
import { TestClock } from "effect/testing"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger } from "effect"
import * as Readiness from "../src/Readiness.js"

interface Line {
  readonly level: string
  readonly message: string
  readonly withCause: boolean
}

const capture = () => {
  const lines: Array<Line> = []
  const logger = Logger.make<unknown, void>(({ cause, logLevel, message }) => {
    lines.push({ level: logLevel.toUpperCase(), message: [message].flat().map(String).join(" "), withCause: cause.reasons.length > 0 })
  })
  return { lines, layer: Logger.layer([logger]) }
}

/** A store whose answer the test sets. */
const switchableStore = () => {
  const state = { up: true }
  const layer = Layer.succeed(Readiness.StoreReadiness, {
    check: Effect.sync((): Readiness.Check => (state.up ? Readiness.UP : { state: "down", reason: "the store cannot be reached" }))
  })
  return { state, layer }
}

/** Lets the forked watcher run until it waits for the clock again. */
const settle = Effect.repeat(Effect.yieldNow, { times: 50 })

describe("Readiness.watch", () => {
  it.effect("an outage with many refusals: one warning, one line when back with its length and count, found without traffic", () => {
    const log = capture()
    const store = switchableStore()
    return Effect.gen(function*() {
      const watch = yield* Readiness.watch({ watchEvery: "250 millis" })
      store.state.up = false
      for (let i = 0; i < 40; i++) yield* watch.refused("no answer within 300 millis")
      yield* settle
      yield* TestClock.adjust("1 second")
      yield* settle
      store.state.up = true
      yield* TestClock.adjust("250 millis")
      yield* settle
      expect(log.lines.map((l) => [l.level, l.message])).toStrictEqual([
        ["WARN", "readiness: not ready: the store cannot be reached; requests that need it answer 503 unavailable until it answers again"],
        ["INFO", "readiness: the store and the rate limiter answer again after 1.3 s; 40 requests refused meanwhile (503 unavailable)"]
      ])
      expect(log.lines.some((l) => l.withCause)).toBe(false)
      // Over: the next refusal while all answers is not an outage.
      yield* watch.refused("duplicate key")
      yield* settle
      expect(log.lines.at(-1)).toMatchObject({ level: "WARN", message: "a request was refused (503 unavailable): duplicate key" })
      expect(log.lines).toHaveLength(3)
    }).pipe(Effect.provide(Layer.merge(store.layer, log.layer)))
  })

  it.effect("an outage a readiness probe finds first is the same outage the refusals count against", () => {
    const log = capture()
    const store = switchableStore()
    return Effect.gen(function*() {
      const watch = yield* Readiness.watch({ watchEvery: "250 millis", reuse: "0 millis" })
      store.state.up = false
      expect((yield* watch.report).ready).toBe(false)
      const refusals = yield* Effect.forkChild(Effect.forEach(Array.from({ length: 3 }), () => watch.refused("down"), { discard: true }))
      yield* Fiber.join(refusals)
      yield* settle
      store.state.up = true
      yield* TestClock.adjust("250 millis")
      yield* settle
      expect(log.lines.map((l) => l.message)).toStrictEqual([
        "readiness: not ready: the store cannot be reached; requests that need it answer 503 unavailable until it answers again",
        "readiness: the store and the rate limiter answer again after 0.3 s; 3 requests refused meanwhile (503 unavailable)"
      ])
    }).pipe(Effect.provide(Layer.merge(store.layer, log.layer)))
  })
})
