/**
 * All access to the one connection. Writes are queued and a single writer runs what is waiting as
 * one transaction (group commit): one fsync acknowledges a whole batch, so durable writes are not
 * capped at one fsync per request. A write's result is handed back only after COMMIT returned,
 * that is, once it is on disk. When a write of a batch fails, the batch is rolled back and its
 * writes run again one transaction each, so a failing write fails alone (writes are SQL only: one
 * may run twice, the first run undone). Reads take the same lock, so a reader never sees a batch
 * before it is committed (on one connection, uncommitted rows are visible to every statement).
 *
 * @since 1.0.0
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Queue } from "effect"
import { Errors } from "@petstore/core"

export interface GroupCommitOptions {
  /** The most writes committed together; 1 turns grouping off (one transaction per write). */
  readonly maxBatch: number
}

export const DEFAULT_OPTIONS: GroupCommitOptions = { maxBatch: 256 }

/** A failure of SQLite (not of the caller's logic) becomes the core's `StoreUnavailable`. */
const isSqlError = (e: unknown): e is SqlError.SqlError =>
  typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "SqlError"

type Unavailable<E> = Exclude<E, SqlError.SqlError> | Errors.StoreUnavailable

const toUnavailable = <E>(e: E): Unavailable<E> =>
  isSqlError(e) ? new Errors.StoreUnavailable({ cause: e }) : (e as Exclude<E, SqlError.SqlError>)

interface PendingWrite {
  readonly write: Effect.Effect<unknown, unknown>
  readonly done: Deferred.Deferred<unknown, unknown>
}

/** @category services */
export class Database extends Context.Tag("@petstore/sqlite/Database")<
  Database,
  {
    /** Runs statements between batches, never inside one. */
    readonly read: <A, E>(query: Effect.Effect<A, E>) => Effect.Effect<A, Unavailable<E>>
    /**
     * Runs `write` inside the next batch's transaction and answers once that transaction is
     * committed. A failure of `write` rolls back only its own statements. `write` is SQL only:
     * it must not call `read` or `write` (the lock is held) and may run twice.
     */
    readonly write: <A, E>(write: Effect.Effect<A, E>) => Effect.Effect<A, Unavailable<E>>
    /** Batches committed and writes in them so far (for the measurements in docs/storage.md). */
    readonly stats: Effect.Effect<{ readonly batches: number; readonly writes: number }>
  }
>() {
  static readonly layer = (options: Partial<GroupCommitOptions> = {}) =>
    Layer.scoped(Database, make({ ...DEFAULT_OPTIONS, ...options }))
}

/** @category constructors */
export const make = (options: GroupCommitOptions) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const lock = yield* Effect.makeSemaphore(1)
    const queue = yield* Queue.unbounded<PendingWrite>()
    let closed = false
    let batches = 0
    let writes = 0

    const statement = (text: string) => sql.unsafe(text)

    // Runs `items` in one transaction. Succeeds with their exits when all succeeded and COMMIT
    // returned; when one failed, everything was rolled back and it says which did.
    const transaction = (items: ReadonlyArray<PendingWrite>) =>
      Effect.gen(function*() {
        // IMMEDIATE takes the write lock now, waiting (busy timeout) for another process's write.
        yield* statement("BEGIN IMMEDIATE")
        const exits: Array<Exit.Exit<unknown, unknown>> = []
        for (const item of items) {
          const exit = yield* Effect.exit(item.write)
          exits.push(exit)
          if (Exit.isFailure(exit)) {
            yield* statement("ROLLBACK")
            return { committed: false as const, exits }
          }
        }
        yield* statement("COMMIT")
        return { committed: true as const, exits }
      }).pipe(Effect.tapErrorCause(() => Effect.ignore(statement("ROLLBACK"))))

    const settle = (item: PendingWrite, exit: Exit.Exit<unknown, unknown>) => Deferred.done(item.done, exit)

    // Runs `items` as one transaction and hands each write its outcome. Answers false, having
    // answered nobody, when one of several writes failed and the transaction was rolled back.
    const commitAndSettle = (items: ReadonlyArray<PendingWrite>) =>
      Effect.gen(function*() {
        const outcome = yield* Effect.exit(transaction(items))
        if (Exit.isFailure(outcome)) {
          // BEGIN or COMMIT failed (disk, lock): nothing of the batch is kept, every write fails.
          yield* Effect.forEach(items, (item) => settle(item, outcome), { discard: true })
          return true
        }
        const { committed, exits } = outcome.value
        if (!committed && items.length > 1) return false
        if (committed) {
          batches++
          writes += items.length
        }
        yield* Effect.forEach(items, (item, i) => settle(item, exits[i]!), { discard: true })
        return true
      })

    const runBatch = (batch: ReadonlyArray<PendingWrite>) =>
      Effect.gen(function*() {
        if (yield* commitAndSettle(batch)) return
        // A write failed and the batch was rolled back: each write again, alone, so it fails alone.
        for (const item of batch) yield* commitAndSettle([item])
      }).pipe(lock.withPermits(1), Effect.uninterruptible)

    const writer = Effect.forever(
      Effect.gen(function*() {
        const first = yield* Queue.take(queue)
        // Let the event loop read the other sockets that are ready before committing: their writes
        // join this batch instead of each waiting for a synchronous fsync of its own.
        yield* Effect.async<void>((resume) => {
          setImmediate(() => resume(Effect.void))
        })
        const rest = yield* Queue.takeUpTo(queue, options.maxBatch - 1)
        yield* runBatch([first, ...rest])
      })
    )
    const fiber = yield* Effect.forkDaemon(writer)

    // Stores built on this layer are closed first; what they still queued is committed, then nothing more.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        closed = true
        yield* Fiber.interrupt(fiber)
        while (true) {
          const left = yield* Queue.takeUpTo(queue, options.maxBatch)
          if (left.length === 0) break
          yield* runBatch([...left])
        }
      })
    )

    const closedError = Effect.fail(new Errors.StoreUnavailable({ cause: "the database is closed" }))

    return Database.of({
      read: <A, E>(query: Effect.Effect<A, E>) =>
        lock.withPermits(1)(query).pipe(Effect.mapError(toUnavailable<E>)),
      write: <A, E>(write: Effect.Effect<A, E>) =>
        Effect.suspend(() => {
          if (closed) return closedError
          return Effect.flatMap(Deferred.make<unknown, unknown>(), (done) =>
            Queue.offer(queue, { write, done }).pipe(Effect.zipRight(Deferred.await(done))))
        }).pipe(
          Effect.mapError((e) => toUnavailable(e as E)),
          Effect.map((a) => a as A)
        ),
      stats: Effect.sync(() => ({ batches, writes }))
    })
  })
