/**
 * Laws of the `MessageQueue` service and its worker over any `MessageStore`, with the `TestClock`.
 *
 * @since 1.0.0
 */
import * as fc from "fast-check"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Context, Duration, Effect, Exit, Layer, Option, Scope } from "effect"
import { MessageProcessor, MessageQueue, MessageStore, SecureRandom } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { advanceUntil, isStrictlyIncreasing, numRuns, property, realPause, realUntil } from "./internal/support.js"

const START = 1_800_000_000_000

/** Short, round numbers so virtual time stays small; the worker wakes exactly when a retry is due. */
const QUEUE_OPTIONS: MessageQueue.MessageQueueOptions = {
  concurrency: 2,
  maxAttempts: 4,
  backoffBaseMillis: 1_000,
  backoffMaxMillis: 600_000,
  leaseMillis: 30_000,
  pollMillis: 10_000,
  drainMillis: 60_000
}

interface Attempt extends MessageProcessor.ProcessableMessage {
  readonly at: number
}

/** A processor that records every attempt and fails the first `failures` attempts of each message. */
const recordingProcessor = (failures: number, processingMillis = 0) => {
  const attempts: Array<Attempt> = []
  const process = (m: MessageProcessor.ProcessableMessage) =>
    Effect.gen(function*() {
      attempts.push({ ...m, at: yield* Clock.currentTimeMillis })
      if (processingMillis > 0) yield* Effect.sleep(Duration.millis(processingMillis))
      if (m.attempt <= failures) {
        return yield* new MessageProcessor.ProcessingFailed({ reason: `failure ${m.attempt} of ${failures}` })
      }
    })
  return { attempts, process }
}

/**
 * Builds the store in the current scope, and the queue (with its worker) in a scope of its own that
 * `close` ends, so the store outlives the queue and can be read after the drain.
 */
const startQueue = <E>(
  storeLayer: Layer.Layer<MessageStore.MessageStore, E>,
  process: MessageProcessor.MessageProcessor["Service"]["process"],
  options: Partial<MessageQueue.MessageQueueOptions> = {}
) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(START)
    const storeContext = yield* Layer.build(storeLayer)
    const queueScope = yield* Scope.fork(yield* Effect.scope, "sequential")
    const queueContext = yield* Layer.buildWithScope(
      MessageQueue.MessageQueue.layer({ ...QUEUE_OPTIONS, ...options }).pipe(
        Layer.provide(Layer.mergeAll(
          Layer.succeedContext(storeContext),
          Layer.succeed(MessageProcessor.MessageProcessor, { process }),
          SecureRandom.SecureRandom.Live
        ))
      ),
      queueScope
    )
    return {
      queue: Context.get(queueContext, MessageQueue.MessageQueue),
      store: Context.get(storeContext, MessageStore.MessageStore),
      close: Scope.close(queueScope, Exit.void)
    }
  })

const stored = (store: MessageStore.MessageStore["Service"], id: string) => Effect.map(store.find(id), Option.getOrThrow)

/** What the laws of this suite share: its parameters and the helpers over its layer. */
const suiteOf = <E>(
  name: string,
  layer: Layer.Layer<MessageStore.MessageStore, E>,
  options?: LawSuiteOptions
) => {
  const runs = numRuns(options, 5)
  return { name, layer, options, runs }
}

type Suite<E> = ReturnType<typeof suiteOf<E>>

/** Delivery: at once, after retries, or failed after the last attempt. */
const deliveryLaws = <E>({ layer, runs }: Suite<E>): void => {
  it.effect("a submitted message is answered queued, then delivered by the worker", () =>
    Effect.gen(function*() {
      const processor = recordingProcessor(0)
      const { queue, store } = yield* startQueue(layer, processor.process)
      const message = yield* queue.submit("acc_a", "hello, world")
      expect(message).toMatchObject({ status: "queued", message: "hello, world", createdAt: new Date(START).toISOString() })
      yield* advanceUntil(Effect.map(queue.get("acc_a", message.id), (m) => m.status === "delivered"), "100 millis", 100)
      expect(processor.attempts.map(({ at: _, ...m }) => m)).toStrictEqual([
        { id: message.id, accountId: "acc_a", message: "hello, world", attempt: 1, createdAt: START }
      ])
      expect(yield* stored(store, message.id)).toMatchObject({ status: "delivered", attempts: 1 })
    }))

  property(
    "a processor that fails N times is retried with growing delays, queued in between, then the message is delivered",
    [fc.integer({ min: 1, max: 3 })],
    ([failures]) =>
      Effect.gen(function*() {
        const processor = recordingProcessor(failures)
        const { queue, store } = yield* startQueue(layer, processor.process)
        const { id } = yield* queue.submit("acc_a", "retry me")
        yield* advanceUntil(Effect.sync(() => processor.attempts.length > 0), "100 millis", 100)
        yield* advanceUntil(Effect.map(stored(store, id), (m) => m.status === "queued"), "1 millis", 10)
        expect((yield* queue.get("acc_a", id)).status).toBe("queued")
        // Steps well below the backoff's jitter (±20 % of 1 s, 2 s, 4 s), so measured delays keep their order.
        yield* advanceUntil(Effect.map(stored(store, id), (m) => m.status === "delivered"), "50 millis", 400)
        expect(processor.attempts.map((a) => a.attempt)).toStrictEqual(Array.from({ length: failures + 1 }, (_, i) => i + 1))
        const delays = processor.attempts.slice(1).map((a, i) => a.at - processor.attempts[i]!.at)
        expect(delays.every((d) => d > 0)).toBe(true)
        expect(isStrictlyIncreasing(delays)).toBe(true)
        expect(yield* stored(store, id)).toMatchObject({ status: "delivered", attempts: failures + 1 })
      }),
    runs
  )

  it.effect("a processor that always fails leaves the message failed after exactly maxAttempts attempts", () =>
    Effect.gen(function*() {
      const processor = recordingProcessor(Infinity)
      const { queue, store } = yield* startQueue(layer, processor.process)
      const { id } = yield* queue.submit("acc_a", "doomed")
      yield* advanceUntil(Effect.map(queue.get("acc_a", id), (m) => m.status === "failed"), "1 second", 100)
      expect(processor.attempts).toHaveLength(QUEUE_OPTIONS.maxAttempts)
      yield* TestClock.adjust("2 minutes")
      expect(processor.attempts).toHaveLength(QUEUE_OPTIONS.maxAttempts)
      expect(yield* stored(store, id)).toMatchObject({
        status: "failed",
        attempts: QUEUE_OPTIONS.maxAttempts,
        lastError: `failure ${QUEUE_OPTIONS.maxAttempts} of Infinity`
      })
    }))
}

/** An attempt cut at its lease, a message read only by its account, and what is due drained at the close. */
const leaseAndOwnershipLaws = <E>({ layer, runs }: Suite<E>): void => {
  it.effect("an attempt that outlives its lease is cut at the lease and retried, and every worker carries on", () =>
    Effect.gen(function*() {
      // Every first attempt hangs: both workers are cut twice (two messages each time) before a retry succeeds.
      const attempts: Array<Attempt> = []
      const process = (m: MessageProcessor.ProcessableMessage) =>
        Effect.gen(function*() {
          attempts.push({ ...m, at: yield* Clock.currentTimeMillis })
          if (m.attempt === 1) yield* Effect.never
        })
      const { queue, store } = yield* startQueue(layer, process)
      const ids: Array<string> = []
      for (let i = 0; i < 4; i++) ids.push((yield* queue.submit("acc_a", `hangs once ${i}`)).id)
      const delivered = Effect.map(Effect.forEach(ids, (id) => stored(store, id)), (ms) => ms.every((m) => m.status === "delivered"))
      // The clock goes to the cut at once; the cut workers record their outcomes and claim the next
      // two at that instant: on a store across a network that is several round trips, so the clock
      // stands still (however loaded the machine) until both have started. Then on to the retries.
      yield* realUntil(Effect.sync(() => attempts.length >= 2), 10_000)
      yield* TestClock.adjust(Duration.millis(QUEUE_OPTIONS.leaseMillis - 1_000))
      yield* realUntil(Effect.sync(() => attempts.length >= 4), 10_000)
      yield* advanceUntil(delivered, "500 millis", 400, realPause(20))
      for (const id of ids) {
        expect(attempts.filter((a) => a.id === id).map((a) => a.attempt)).toStrictEqual([1, 2])
        expect(yield* stored(store, id)).toMatchObject({ status: "delivered", attempts: 2 })
      }
      // The first two hang from the start; both workers are cut shortly before the lease ends (a tenth of
      // it, a second at most, is kept for recording the outcome) and at once take the next two, which
      // hang as long; the retries come after.
      const firstAt = (id: string) => attempts.find((a) => a.id === id && a.attempt === 1)!.at - START
      const lease = QUEUE_OPTIONS.leaseMillis
      for (const id of ids.slice(0, 2)) expect(firstAt(id)).toBe(0)
      const cut = lease - 1_000
      for (const id of ids.slice(2)) expect(firstAt(id)).toBeGreaterThanOrEqual(cut)
      for (const id of ids.slice(2)) expect(firstAt(id)).toBeLessThanOrEqual(cut + 500)
      for (const a of attempts.filter((a) => a.attempt === 2)) expect(a.at - START).toBeGreaterThanOrEqual(2 * cut)
    }))

  it.effect("only the submitting account can read a message; another account gets MessageNotFound", () =>
    Effect.gen(function*() {
      const { queue } = yield* startQueue(layer, recordingProcessor(0).process)
      const message = yield* queue.submit("acc_owner", "private")
      expect((yield* queue.get("acc_owner", message.id)).id).toBe(message.id)
      expect(yield* Effect.flip(queue.get("acc_other", message.id))).toMatchObject({ _tag: "MessageNotFound", id: message.id })
      expect(yield* Effect.flip(queue.get("acc_owner", "msg_unknown"))).toMatchObject({ _tag: "MessageNotFound" })
    }))

  property(
    "closing the layer drains what is due: every message submitted before the close is delivered",
    [fc.integer({ min: 1, max: 6 })],
    ([count]) =>
      Effect.gen(function*() {
        // One worker, one virtual second per message: most messages are still queued when the close begins.
        const processor = recordingProcessor(0, 1_000)
        const { close, queue, store } = yield* startQueue(layer, processor.process, { concurrency: 1 })
        const ids: Array<string> = []
        for (let i = 0; i < count; i++) ids.push((yield* queue.submit("acc_a", `message ${i}`)).id)
        for (const id of ids) expect(["queued", "processing"]).toContain((yield* stored(store, id)).status)
        const closing = yield* Effect.forkChild(close)
        // Three virtual seconds a message (one to process it) and 10 more, inside the 60 s drain bound,
        // with 25 ms of real time a step: a store across a network may need more than one step for a
        // message's round trips when the machine is busy (1 ms a step was too little under a loaded
        // CI), while a drain that waits a poll interval (10 s) between messages still fails.
        yield* advanceUntil(Effect.sync(() => closing.pollUnsafe() !== undefined), "1 second", count * 3 + 10, realPause(25))
        for (const id of ids) expect(yield* stored(store, id)).toMatchObject({ status: "delivered", attempts: 1 })
        expect(processor.attempts).toHaveLength(count)
      }),
    runs
  )
}

/**
 * Registers the laws of the `MessageQueue` service and its worker running on the `MessageStore` that
 * `layer` provides.
 *
 * @category law suites
 * @since 1.0.0
 */
export const messageQueueServiceLaws = <E>(
  name: string,
  layer: Layer.Layer<MessageStore.MessageStore, E>,
  options?: LawSuiteOptions
): void => {
  const suite = suiteOf(name, layer, options)
  describe(`MessageQueue service laws: ${name}`, () => {
    deliveryLaws(suite)
    leaseAndOwnershipLaws(suite)
  })
}
