/**
 * Message submission and the worker that processes submitted messages: claim with a lease, process
 * through the application's `MessageProcessor`, retry with exponential backoff and jitter, mark
 * `failed` when the retry budget is spent, and drain on shutdown.
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Random from "effect/Random"
import { MessageNotFound, type StoreUnavailable } from "./Errors.js"
import * as LeaseWatch from "./internal/leaseWatch.js"
import type { Message, MessageId } from "./Message.js"
import { MessageProcessor } from "./MessageProcessor.js"
import { MessageStore, type StoredMessage } from "./MessageStore.js"
import { nextDelayMillis } from "./RetrySchedule.js"
import { randomId, SecureRandom } from "./SecureRandom.js"

/** How the queue runs its workers and retries. */
export interface MessageQueueOptions {
  /** Worker fibers processing at once. */
  readonly concurrency: number
  /**
   * Workers one account's messages take at most at once (none: no bound). Messages of an account at
   * its bound wait in the queue, not in a worker, so that one account's slow processing (a webhook
   * endpoint that hangs) leaves the other workers to every other account.
   */
  readonly maxInFlightPerAccount?: number | undefined
  /** Attempts before a message is marked failed. */
  readonly maxAttempts: number
  readonly backoffBaseMillis: number
  readonly backoffMaxMillis: number
  /** How long a claim lasts; an attempt still running shortly before it ends (a tenth of it, a second at most) is cut and retried. */
  readonly leaseMillis: number
  /** Longest wait between looks at the store when nothing wakes the worker. */
  readonly pollMillis: number
  /** On shutdown, how long the worker may keep processing what is due before it stops. */
  readonly drainMillis: number
  /**
   * A published schedule instead of `maxAttempts` and the exponential backoff: the delays before each
   * retry (see `RetrySchedule`); the message fails once they are spent.
   */
  readonly retryDelaysMillis?: ReadonlyArray<number> | undefined
}

/** The message queue's defaults. */
export const DEFAULT_OPTIONS: MessageQueueOptions = {
  concurrency: 2,
  maxAttempts: 5,
  backoffBaseMillis: 1_000,
  backoffMaxMillis: 300_000,
  leaseMillis: 30_000,
  pollMillis: 1_000,
  drainMillis: 10_000
}

/** The delay before attempt `attempts + 1`: base·2^(attempts−1), capped, with ±20 % jitter. */
export const backoffMillis = (attempts: number, options: MessageQueueOptions, jitter: number): number => {
  const exact = Math.min(options.backoffBaseMillis * 2 ** Math.min(attempts - 1, 30), options.backoffMaxMillis)
  return Math.max(0, Math.round(exact * (0.8 + 0.4 * jitter)))
}

/** A new message as it is stored on submission: queued, available at once, no attempt yet. */
export const queuedMessage = (id: string, accountId: string, text: string, now: number): StoredMessage => ({
  id,
  accountId,
  message: text,
  status: "queued",
  createdAt: now,
  updatedAt: now,
  attempts: 0,
  availableAt: now,
  leaseUntil: 0,
  lastError: null
})

/** The wire view of a stored message. */
export const toMessage = (m: StoredMessage): Message => ({
  id: m.id as MessageId,
  message: m.message,
  status: m.status,
  createdAt: new Date(m.createdAt).toISOString()
})

/**
 * The wire view of a stored message with its delivery: the attempts made, and once final the time it
 * was delivered or the last error.
 */
export const toMessageDelivery = (m: StoredMessage): Message => ({
  ...toMessage(m),
  attempts: m.attempts,
  ...(m.status === "delivered" ? { deliveredAt: new Date(m.updatedAt).toISOString() } : {}),
  ...(m.status === "failed" && m.lastError !== null ? { lastError: m.lastError } : {})
})

/** The queue of submitted messages: submits, reads and hands each to the message processor, with retries. @category services */
export class MessageQueue extends Context.Service<
  MessageQueue,
  {
    /** Stores the message durably (per the store) and wakes the worker; the result has status `queued`. */
    readonly submit: (accountId: string, text: string) => Effect.Effect<Message, StoreUnavailable>
    /** Wakes the worker: a message was stored by other means than `submit` (a keyed create). */
    readonly wake: Effect.Effect<void>
    /** A message of `accountId`; another account's message is not found. */
    readonly get: (accountId: string, id: string) => Effect.Effect<Message, MessageNotFound | StoreUnavailable>
  }
>()("@petstore/core/MessageQueue") {
  /** The queue with its worker, which runs for the life of the layer and drains when it closes. */
  static readonly layer = (options: Partial<MessageQueueOptions> = {}) =>
    Layer.effect(MessageQueue, make({ ...DEFAULT_OPTIONS, ...options }))
}

/** The delay before a message's next attempt, none when it has had its last. */
const nextDelayOf = (options: MessageQueueOptions) => {
  const schedule = options.retryDelaysMillis
  return (attempts: number, jitter: number, retryAfterMillis: number | undefined): Option.Option<number> =>
    schedule !== undefined
      ? nextDelayMillis(schedule, attempts, jitter, retryAfterMillis)
      : attempts >= options.maxAttempts
      ? Option.none()
      : Option.some(backoffMillis(attempts, options, jitter))
}

/** One attempt at a claimed message, its outcome recorded: delivered, retried later, or failed. */
const attemptWith = (
  store: MessageStore["Service"],
  processor: MessageProcessor["Service"],
  leases: LeaseWatch.LeaseWatch,
  options: MessageQueueOptions
) => {
  const nextDelay = nextDelayOf(options)
  return (m: StoredMessage, slot: LeaseWatch.Slot) =>
    Effect.gen(function*() {
      // The processor's own work stays interruptible, so the lease's watch (and shutdown) can cut a
      // hung attempt; recording the outcome around it does not.
      yield* leases.begin(slot, LeaseWatch.cutAt(m.leaseUntil, options.leaseMillis))
      const exit = yield* Effect.suspend(() =>
        processor.process({
          id: m.id,
          accountId: m.accountId,
          message: m.message,
          attempt: m.attempts,
          createdAt: m.createdAt
        })
      ).pipe(
        Effect.interruptible,
        // A crash is a failure like any other; the message shows a stable reason, the log the defect.
        Effect.catchDefect((defect) =>
          Effect.andThen(
            Effect.logWarning("message processor: defect", Cause.die(defect)),
            Effect.fail({ reason: "processing failed: internal error" })
          )
        ),
        Effect.ensuring(Effect.sync(() => leases.end(slot))),
        Effect.exit
      )
      const now = yield* Clock.currentTimeMillis
      if (Exit.isSuccess(exit)) return yield* store.markDelivered(m, now)
      const failure: { reason: string; retryAfterMillis?: number | undefined; final?: boolean | undefined } | undefined =
        LeaseWatch.wasCut(slot, exit)
          ? { reason: "processing took longer than the lease" }
          : Option.getOrUndefined(Cause.findErrorOption(exit.cause))
      // Interrupted at shutdown: the message stays leased, and is taken again once the lease ends.
      if (failure === undefined) return yield* Effect.failCause(exit.cause)
      const delay = failure.final === true ? Option.none() : nextDelay(m.attempts, yield* Random.next, failure.retryAfterMillis)
      if (Option.isNone(delay)) return yield* store.markFailed(m, now, failure.reason)
      yield* store.markRetry(m, now, now + delay.value, failure.reason)
    })
}

/**
 * The messages each account has in workers now, and the accounts at their bound (`perAccount`),
 * whose messages the workers skip; a worker idle because of them is woken when one leaves.
 */
const accountBounds = (perAccount: number, wake: Queue.Queue<void>) => {
  const inFlight = new Map<string, number>()
  const saturated = new Set<string>()
  const skipped = (): ReadonlyArray<string> => saturated.size === 0 ? [] : [...saturated]
  const enter = (accountId: string) => {
    const n = (inFlight.get(accountId) ?? 0) + 1
    inFlight.set(accountId, n)
    if (n >= perAccount) saturated.add(accountId)
  }
  const leave = (accountId: string) => {
    const n = inFlight.get(accountId)! - 1
    if (n === 0) inFlight.delete(accountId)
    else inFlight.set(accountId, n)
    // A worker idle because every claimable message was of a saturated account looks again.
    if (saturated.delete(accountId)) Queue.offerUnsafe(wake, undefined)
  }
  return { enter, leave, saturated, skipped }
}

/** Builds the message queue over the message store and the processor. @category constructors */
export const make = (options: MessageQueueOptions) =>
  Effect.gen(function*() {
    const store = yield* MessageStore
    const processor = yield* MessageProcessor
    const random = yield* SecureRandom
    const wake = yield* Queue.sliding<void>(Math.max(1, options.concurrency))
    // Started before the workers, so it is stopped after their drain (finalizers run in reverse).
    const leases = yield* LeaseWatch.make
    let draining = false

    const attempt = attemptWith(store, processor, leases, options)
    const { enter, leave, saturated, skipped } = accountBounds(options.maxInFlightPerAccount ?? Infinity, wake)

    /** Waits for a wake or the next message due; with accounts skipped, the store's next due may be theirs. */
    const idle = (skipping: boolean) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const next = skipping ? Option.none() : yield* store.nextClaimAt
        const wait = Option.match(next, {
          onNone: () => options.pollMillis,
          onSome: (at) => Math.max(1, Math.min(options.pollMillis, at - now))
        })
        yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(Duration.millis(wait)))
      })

    // One worker: claim and process until shutdown; when draining, stop as soon as nothing is due.
    const worker = (slot: LeaseWatch.Slot) =>
      Effect.gen(function*() {
        while (true) {
          const now = yield* Clock.currentTimeMillis
          const skip = skipped()
          const claimed = yield* store.claim(now, options.leaseMillis, skip)
          if (Option.isSome(claimed)) {
            const m = claimed.value
            // Claimed together with other workers' claims while its account reached its bound: handed back.
            if (saturated.has(m.accountId)) {
              yield* store.release(m.id, m.leaseUntil)
              continue
            }
            enter(m.accountId)
            // An attempt runs to its end once started, so shutdown never leaves a half-recorded outcome.
            yield* Effect.uninterruptible(attempt(m, slot).pipe(Effect.ensuring(Effect.sync(() => leave(m.accountId)))))
          } else if (draining) {
            return
          } else {
            yield* idle(skip.length > 0)
          }
        }
      }).pipe(
        // A store outage must not kill the worker: wait, go on. An outage is the readiness watch's to
        // say (once, not once a poll); only a defect is logged here, with its stack.
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : (Cause.hasFails(cause)
              ? Effect.logDebug("message worker: store unavailable, retrying")
              : Effect.logWarning("message worker: defect, retrying", cause)).pipe(
                Effect.andThen(Effect.sleep(Duration.millis(options.pollMillis)))
              )
        ),
        Effect.repeat({ until: () => draining })
      )

    // Layers are built uninterruptibly and forked fibers inherit that; the workers must be
    // interruptible, or closing the layer would wait for the whole backlog instead of `drainMillis`.
    // Each runs under its supervisor, which starts it again when the lease's watch cut an attempt.
    const fibers = yield* Effect.forEach(
      Array.from({ length: Math.max(1, options.concurrency) }),
      () => {
        const slot = leases.slot()
        return Effect.forkScoped(Effect.interruptible(leases.supervise(slot, worker(slot))))
      }
    )
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        draining = true
        yield* Queue.offerAll(wake, fibers.map(() => undefined))
        // Finalizers run uninterruptibly: the wait itself must be interruptible for the timeout to cut it.
        yield* Effect.interruptible(Fiber.awaitAll(fibers)).pipe(
          Effect.timeout(Duration.millis(options.drainMillis)),
          Effect.ignore
        )
      })
    )

    return MessageQueue.of({
      submit: (accountId, text) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const id = yield* Effect.provideService(randomId("msg"), SecureRandom, random)
          const stored = queuedMessage(id, accountId, text, now)
          yield* store.insert(stored)
          yield* Queue.offer(wake, undefined)
          return toMessage(stored)
        }),
      wake: Effect.asVoid(Queue.offer(wake, undefined)),
      get: (accountId, id) =>
        Effect.flatMap(store.find(id), (m) =>
          Option.isSome(m) && m.value.accountId === accountId
            ? Effect.succeed(toMessageDelivery(m.value))
            : Effect.fail(new MessageNotFound({ id })))
    })
  })
