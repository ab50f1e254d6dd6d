/**
 * All access to the one connection. Writes are queued and run together as one transaction (group
 * commit): one fsync acknowledges a whole batch, so durable writes are not capped at one fsync per
 * request. A write's result is handed back only after COMMIT returned, that is, once it is on disk.
 *
 * A write is a synchronous function of prepared statements (better-sqlite3 runs SQL in the calling
 * turn). The first write queued schedules the batch for the end of that turn of the event loop
 * (`setImmediate`); while more writes keep arriving, it waits a few more turns (`gatherTurns`), so
 * the writes of every request that arrives meanwhile share one commit.
 * A batch runs BEGIN … COMMIT without yielding, so no read can ever see a write before its commit
 * and reads need no lock. When a write of a batch throws, the batch is rolled back and its writes run
 * again one transaction each, so a failing write fails alone (writes are SQL only: one may run
 * twice, the first run undone).
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { Errors } from "@petstore/core"
import { Connection } from "./Connection.js"

/** How many writes a commit takes at most, and how long it gathers them. */
export interface GroupCommitOptions {
  /** The most writes committed together; 1 turns grouping off (one transaction per write). */
  readonly maxBatch: number
  /**
   * While writes keep arriving, the commit waits up to this many more turns of the event loop for
   * them (each turn reads the sockets that became readable), so requests that arrive a moment apart
   * share one fsync. It commits at once when a turn brought no new write, so a lone write waits one
   * turn, not a timer. 0 commits what arrived in the first turn.
   */
  readonly gatherTurns: number
  /** Told the number of writes of each batch committed (for metrics); it must not throw. */
  readonly onBatch?: ((writes: number) => void) | undefined
}

/** The group commit's defaults. */
export const DEFAULT_OPTIONS: GroupCommitOptions = { maxBatch: 256, gatherTurns: 3 }

const unavailable = (cause: unknown) => new Errors.StoreUnavailable({ cause })

interface PendingWrite {
  readonly write: () => unknown
  readonly resume: (exit: Exit.Exit<unknown, Errors.StoreUnavailable>) => void
}

/** The database's writes, committed in groups. @category services */
export class Database extends Context.Service<
  Database,
  {
    /** Runs a query now; it sees only committed writes. */
    readonly read: <A>(query: () => A) => Effect.Effect<A, Errors.StoreUnavailable>
    /**
     * Runs `write` inside the next batch's transaction and answers once that transaction is
     * committed. When `write` throws, only its own statements are rolled back. `write` is SQL only
     * (it may run twice) and must not call `read` or `write`.
     */
    readonly write: <A>(write: () => A) => Effect.Effect<A, Errors.StoreUnavailable>
    /** Batches committed and writes in them so far (for the measurements in docs/storage.md). */
    readonly stats: Effect.Effect<{ readonly batches: number; readonly writes: number }>
  }
>()("@petstore/sqlite/Database") {
  static readonly layer = (options: Partial<GroupCommitOptions> = {}) =>
    Layer.effect(Database, make({ ...DEFAULT_OPTIONS, ...options }))
}

/** Builds the group-commit writer over the connection. @category constructors */
export const make = (options: GroupCommitOptions) =>
  Effect.gen(function*() {
    const connection = yield* Connection
    const begin = connection.prepare("BEGIN IMMEDIATE")
    const commit = connection.prepare("COMMIT")
    const rollback = connection.prepare("ROLLBACK")
    const maxBatch = Math.max(1, Math.floor(options.maxBatch))
    const gatherTurns = Math.max(0, Math.floor(options.gatherTurns))
    let pending: Array<PendingWrite> = []
    let scheduled = false
    // Writes seen at the last turn while gathering, and how many turns this batch waited.
    let seen = 0
    let waited = 0
    let closed = false
    let batches = 0
    let writes = 0

    const undo = () => {
      try {
        rollback.run()
      } catch {
        // No transaction left to roll back (SQLite already ended it after the error).
      }
    }

    // Tells each writer its outcome; one writer's callback failing must not keep the others waiting.
    const tell = (item: PendingWrite, exit: Exit.Exit<unknown, Errors.StoreUnavailable>) => {
      try {
        item.resume(exit)
      } catch {
        // Effect's resume only schedules the fiber; nothing is left to tell this writer.
      }
    }

    const failAll = (batch: ReadonlyArray<PendingWrite>, cause: unknown) => {
      const exit = Exit.fail(unavailable(cause))
      for (const item of batch) tell(item, exit)
    }

    // One transaction for `batch`, each write told its outcome once COMMIT returned.
    const runBatch = (batch: ReadonlyArray<PendingWrite>): void => {
      try {
        // IMMEDIATE takes the write lock now, waiting (busy timeout) for another process's write.
        begin.run()
      } catch (cause) {
        return failAll(batch, cause)
      }
      const results = new Array<unknown>(batch.length)
      for (let i = 0; i < batch.length; i++) {
        try {
          results[i] = batch[i]!.write()
        } catch (cause) {
          undo()
          if (batch.length === 1) return failAll(batch, cause)
          // Each write again, alone, so the one that throws fails alone.
          for (const item of batch) runBatch([item])
          return
        }
      }
      try {
        commit.run()
      } catch (cause) {
        // COMMIT failed (disk full, I/O error): nothing of the batch is kept, every write fails.
        undo()
        return failAll(batch, cause)
      }
      batches++
      writes += batch.length
      options.onBatch?.(batch.length)
      for (let i = 0; i < batch.length; i++) tell(batch[i]!, Exit.succeed(results[i]))
    }

    const flush = () => {
      scheduled = false
      if (pending.length === 0) return
      if (!closed && waited < gatherTurns && pending.length < maxBatch && pending.length > seen) {
        // Writes arrived since the last look: give the sockets one more turn to add theirs.
        seen = pending.length
        waited++
        return schedule()
      }
      seen = 0
      waited = 0
      const batch = pending.length <= maxBatch ? pending : pending.slice(0, maxBatch)
      pending = pending.length <= maxBatch ? [] : pending.slice(maxBatch)
      // More than one batch waiting: the next runs in the next turn, after reads that are waiting.
      if (pending.length > 0) schedule()
      runBatch(batch)
    }

    const schedule = () => {
      if (scheduled) return
      scheduled = true
      setImmediate(flush)
    }

    // Stores built on this layer are closed first; what they still queued is committed, then nothing more.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        while (pending.length > 0) flush()
      })
    )

    const closedError = Exit.fail(unavailable("the database is closed"))

    return Database.of({
      // Run in the caller's step: no fiber is forked for a read.
      read: <A>(query: () => A) => Effect.try({ try: query, catch: unavailable }),
      write: <A>(write: () => A) =>
        Effect.callback<A, Errors.StoreUnavailable>((resume) => {
          if (closed) return resume(closedError)
          pending.push({ write, resume: resume as PendingWrite["resume"] })
          schedule()
        }),
      stats: Effect.sync(() => ({ batches, writes }))
    })
  })
