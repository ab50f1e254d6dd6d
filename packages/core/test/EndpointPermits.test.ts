import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
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

  it.live("an interrupted waiter takes no permit: one handed to it passes to the next", () =>
    Effect.gen(function*() {
      const permits = EndpointPermits.make(1)
      expect(permits.tryTake()).toBe(true)
      const first = yield* Effect.forkChild(permits.take)
      const second = yield* Effect.forkChild(permits.take)
      yield* settle
      // Handed to the first, which is interrupted before it runs again: the permit goes on to the second.
      permits.release()
      yield* Fiber.interrupt(first)
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
