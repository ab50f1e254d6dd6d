import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { WriteBatcher } from "@petstore/postgres"

// A batcher whose statements wait for `gate`; `sent` holds each batch as it is sent.
const gated = Effect.gen(function*() {
  const gate = yield* Deferred.make<void>()
  const inFlight = yield* Deferred.make<void>()
  const sent: Array<ReadonlyArray<string>> = []
  const abandoned: Array<ReadonlyArray<string>> = []
  const batcher = WriteBatcher.make<string, string>(
    (items) =>
      Effect.gen(function*() {
        sent.push(items)
        yield* Deferred.succeed(inFlight, undefined)
        yield* Deferred.await(gate)
        return items.map((item) => `done ${item}`)
      }),
    { maxInFlight: 1, onAbandoned: (results) => abandoned.push(results) }
  )
  return { batcher, gate, inFlight, sent, abandoned }
})

describe("WriteBatcher", () => {
  it.effect("a write whose waiter is interrupted before its batch is sent is taken out: it is never written", () =>
    Effect.gen(function*() {
      const { abandoned, batcher, gate, inFlight, sent } = yield* gated
      const first = yield* Effect.forkChild(batcher.write("a"))
      yield* Deferred.await(inFlight)
      // "b" waits behind the statement in flight (one at a time), then its waiter goes away.
      const second = yield* Effect.forkChild(batcher.write("b"))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(second)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(first)).toBe("done a")
      expect(yield* batcher.write("c")).toBe("done c")
      expect(sent).toEqual([["a"], ["c"]])
      expect(abandoned).toEqual([])
    }))

  it.effect("a write whose waiter is interrupted once its batch was sent is written, and its result goes to onAbandoned", () =>
    Effect.gen(function*() {
      const { abandoned, batcher, gate, inFlight, sent } = yield* gated
      const gone = yield* Effect.forkChild(batcher.write("a"))
      const kept = yield* Effect.forkChild(batcher.write("b"))
      yield* Deferred.await(inFlight)
      yield* Fiber.interrupt(gone)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(kept)).toBe("done b")
      expect(sent).toEqual([["a", "b"]])
      expect(abandoned).toEqual([["done a"]])
    }))
})
