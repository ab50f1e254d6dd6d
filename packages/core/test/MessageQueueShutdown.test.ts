import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Layer, Option, Schedule, Scope } from "effect"
import { MessageProcessor } from "../src/MessageProcessor.js"
import { MessageQueue } from "../src/MessageQueue.js"
import { MessageStore, makeMemory } from "../src/MessageStore.js"
import { SecureRandom } from "../src/SecureRandom.js"

// A processor that says when it starts and never finishes until released, so shutdown has a backlog it cannot drain.
const blocking = (started: Deferred.Deferred<void>, release: Deferred.Deferred<void>) =>
  Layer.succeed(MessageProcessor, { process: () => Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(release)) })

describe("MessageQueue shutdown", () => {
  it.live("closing the layer stops after drainMillis: the backlog stays queued in the store, nothing is lost", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const store = makeMemory()
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        MessageQueue.layer({ concurrency: 1, drainMillis: 50 }).pipe(
          Layer.provide(Layer.mergeAll(Layer.succeed(MessageStore, store), blocking(started, release), SecureRandom.Live))
        ),
        scope
      )
      const queue = Context.get(context, MessageQueue)
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) ids.push((yield* queue.submit("acc", `m${i}`)).id)

      // Once the worker holds a message, the close must not wait for it, nor for the other four: it
      // completes while the processor is still blocked (a close that waited would hang; it fails
      // after 10 s, a bound on a hang, not a speed).
      yield* Deferred.await(started)
      yield* Scope.close(scope, Exit.void).pipe(
        Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.fail(new Error("closing waited for the blocked processor")) })
      )
      yield* Deferred.succeed(release, undefined)

      const states = yield* Effect.forEach(ids, (id) => Effect.map(store.find(id), Option.map((m) => m.status)))
      expect(states.every(Option.isSome)).toBe(true)
      // At most the message in hand finished; the rest are still queued for the next start.
      expect(states.filter((s) => Option.getOrNull(s) === "queued").length).toBeGreaterThanOrEqual(4)
    }))

  it.live("a processor that never returns is cut at the lease, retried, and failed after the budget; closing does not hang", () =>
    Effect.gen(function*() {
      const store = makeMemory()
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        MessageQueue.layer({ concurrency: 1, leaseMillis: 30, maxAttempts: 2, backoffBaseMillis: 1, drainMillis: 50 }).pipe(
          Layer.provide(Layer.mergeAll(
            Layer.succeed(MessageStore, store),
            Layer.succeed(MessageProcessor, { process: () => Effect.never }),
            SecureRandom.Live
          ))
        ),
        scope
      )
      const queue = Context.get(context, MessageQueue)
      const { id } = yield* queue.submit("acc", "stuck")
      const final = yield* queue.get("acc", id).pipe(
        Effect.flatMap((m) => (m.status === "failed" ? Effect.succeed(m) : Effect.fail("not yet" as const))),
        Effect.retry(Schedule.spaced("10 millis")),
        Effect.timeout("5 seconds")
      )
      expect(final.status).toBe("failed")
      const stored = yield* store.find(id)
      expect(Option.map(stored, (m) => m.attempts)).toEqual(Option.some(2))
      yield* Scope.close(scope, Exit.void)
    }))
})
