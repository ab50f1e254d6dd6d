import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import * as EndpointPermits from "../src/internal/endpointPermits.js"

/** Lets forked fibers run up to their next wait. */
const settle = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

describe("EndpointPermits", () => {
  it.live("permits go to the waiters in the order they came, and nobody takes one at once while anyone waits", () =>
    Effect.gen(function*() {
      const permits = EndpointPermits.make(1)
      expect(permits.tryTake()).toBe(true)
      const order: Array<number> = []
      const waiters = yield* Effect.forEach([1, 2, 3], (n) =>
        Effect.forkChild(Effect.andThen(permits.take, Effect.sync(() => void order.push(n)))))
      yield* settle
      // A permit given back goes to the first waiter; a newcomer does not overtake the others.
      permits.release()
      expect(permits.tryTake()).toBe(false)
      yield* settle
      expect(order).toEqual([1])
      permits.release()
      yield* settle
      permits.release()
      yield* Fiber.joinAll(waiters)
      expect(order).toEqual([1, 2, 3])
      // The last holder gives it back: free again.
      permits.release()
      expect(permits.tryTake()).toBe(true)
    }))

  it.live("a permit handed to a waiter is its own in the same step; an interrupted waiter takes no permit", () =>
    Effect.gen(function*() {
      const permits = EndpointPermits.make(1)
      expect(permits.tryTake()).toBe(true)
      const first = yield* Effect.forkChild(permits.take)
      const second = yield* Effect.forkChild(permits.take)
      yield* settle
      // Handed to the first: its wait ends in the release itself, so no interruption can come between
      // the permit handed over and the waiter holding it (nothing is stranded there).
      permits.release()
      expect(first.pollUnsafe()).toStrictEqual(Exit.void)
      yield* Fiber.interrupt(first)
      // The first gives it back: it goes on to the second.
      permits.release()
      yield* Fiber.join(second)
      // A waiter interrupted while still waiting leaves the line.
      const third = yield* Effect.forkChild(permits.take)
      yield* settle
      yield* Fiber.interrupt(third)
      permits.release()
      expect(permits.tryTake()).toBe(true)
      expect(permits.tryTake()).toBe(false)
    }))
})
