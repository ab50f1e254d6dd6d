/**
 * Group commit for PostgreSQL: the writes of one kind that arrive while earlier ones are on their
 * way are sent together as one statement (one round trip, one commit, one WAL flush). A write's
 * result is handed back only once its statement committed. At most `maxInFlight` statements of a
 * batcher are in flight; the writes that arrive meanwhile wait and form the next batch, so under
 * load batches grow by themselves and a lone write waits for nothing but the end of its turn of
 * the event loop.
 *
 * A failed statement fails every write of its batch: the statement is atomic, so none of them
 * was written.
 *
 * A write whose waiter is interrupted before its batch is sent is taken out of the batch: it is not
 * written. Once sent it cannot be taken back; its result, which no one waits for any more, goes to
 * `onAbandoned` (a claim can then hand its row back instead of leaving it leased).
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { Errors } from "@petstore/core"

/** How many writes a batch takes, and how many batches are in flight at once. */
export interface WriteBatcherOptions<O = unknown> {
  /** The most writes sent in one statement. */
  readonly maxBatch: number
  /** Statements of this batcher in flight at once. */
  readonly maxInFlight: number
  /** Told the number of writes of each batch sent (for metrics); it must not throw. */
  readonly onBatch?: ((writes: number) => void) | undefined
  /** Told the results of the writes of a committed batch whose waiters were interrupted after it was sent; it must not throw. */
  readonly onAbandoned?: ((results: ReadonlyArray<O>) => void) | undefined
}

/** The write batcher's defaults. */
export const DEFAULT_OPTIONS: WriteBatcherOptions = { maxBatch: 512, maxInFlight: 2 }

interface Pending<I, O> {
  readonly item: I
  readonly resume: (exit: Exit.Exit<O, Errors.StoreUnavailable>) => void
  /** The waiter was interrupted once the write was sent. */
  gone: boolean
}

/** Writes sent in batches: one statement for many waiting callers. */
export interface WriteBatcher<I, O> {
  /** Queues `item`; succeeds with its result once the batch holding it committed. */
  readonly write: (item: I) => Effect.Effect<O, Errors.StoreUnavailable>
}

/**
 * A batcher over `commit`, which writes a batch in one statement and answers one result per item,
 * in the items' order.
 *
 * @category constructors
 */
export const make = <I, O>(
  commit: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, Errors.StoreUnavailable>,
  options: Partial<WriteBatcherOptions<O>> = {}
): WriteBatcher<I, O> => {
  const { maxBatch, maxInFlight, onBatch } = { ...DEFAULT_OPTIONS, ...options }
  const onAbandoned = options.onAbandoned
  let queue: Array<Pending<I, O>> = []
  let inFlight = 0
  let scheduled = false

  const send = (): void => {
    scheduled = false
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch)
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch)
      inFlight++
      onBatch?.(batch.length)
      Effect.runCallback(commit(batch.map((p) => p.item)), {
        onExit: (exit) => {
          inFlight--
          if (Exit.isSuccess(exit)) {
            // The abandoned results are handed on before any waiter resumes: a resumed waiter runs on
            // at once, and what it goes on to do may count on them being handed on already.
            const abandoned = batch.flatMap((p, i) => p.gone ? [exit.value[i]!] : [])
            if (abandoned.length > 0) onAbandoned?.(abandoned)
            batch.forEach((p, i) => p.gone || p.resume(Exit.succeed(exit.value[i]!)))
          } else batch.forEach((p) => p.resume(exit as Exit.Exit<never, Errors.StoreUnavailable>))
          if (queue.length > 0 && !scheduled) schedule()
        }
      })
    }
  }
  const schedule = () => {
    scheduled = true
    setImmediate(send)
  }

  return {
    write: (item) =>
      Effect.callback<O, Errors.StoreUnavailable>((resume) => {
        const pending: Pending<I, O> = { item, resume, gone: false }
        queue.push(pending)
        if (!scheduled && inFlight < maxInFlight) schedule()
        return Effect.sync(() => {
          const at = queue.indexOf(pending)
          if (at >= 0) queue.splice(at, 1)
          else pending.gone = true
        })
      })
  }
}
