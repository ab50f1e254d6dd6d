/**
 * Usage per account: every decided request counted in memory (`record`, on the request path), the
 * counts flushed to the `UsageStore` every `flushMillis` and when the layer closes, and old buckets
 * swept. Each flush is a batch named by this instance and a sequence number; a batch that failed is
 * sent again, as it was, before anything newer, so a retry after a lost answer counts nothing
 * twice. A crash (kill -9) loses what was counted since the last flush.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type { StoreUnavailable } from "./Errors.js"
import type { Verdict } from "./LimitDecision.js"
import { SecureRandom } from "./SecureRandom.js"
import * as UsageCounter from "./UsageCounter.js"
import type { UsageRange } from "./UsageRange.js"
import { type AccountTotals, type BucketTotals, DAY_MILLIS, type FlushBatch, type StoredBucket, UsageStore } from "./UsageStore.js"

/** How usage is counted, flushed and kept. */
export interface UsageOptions {
  /** The longest counts wait in memory before they are written (`PETSTORE_USAGE_FLUSH_SECONDS`, default 5 s). */
  readonly flushMillis: number
  /** How long hourly buckets are kept (default 90 days). */
  readonly hourlyRetentionMillis: number
  /** How long daily buckets are kept (default 396 days, 13 months). */
  readonly dailyRetentionMillis: number
  /** How often old buckets are swept (default hourly). */
  readonly sweepMillis: number
  /**
   * Rows kept for a store that does not answer (default 200,000, about 100 bytes each); past it the
   * oldest batches are dropped, and said so: requests are never held up by usage counting.
   */
  readonly maxUnsentRows: number
}

/** The defaults of usage counting. */
export const DEFAULT_OPTIONS: UsageOptions = {
  flushMillis: 5_000,
  hourlyRetentionMillis: 90 * DAY_MILLIS,
  dailyRetentionMillis: 396 * DAY_MILLIS,
  sweepMillis: 3_600_000,
  maxUnsentRows: 200_000
}

/** Batch names are kept a day: a batch is retried within seconds, never a day later. */
const FLUSH_NAME_RETENTION_MILLIS = DAY_MILLIS

/** Usage per account and key: counts every decided request and reports it by hour or day. @category services */
export class Usage extends Context.Service<
  Usage,
  {
    /**
     * Counts one decided request of a key, answered with `status`, in the hour of `at` (epoch ms: the
     * decision's instant, so no second clock reading). Synchronous: on every request's path.
     */
    readonly record: (accountId: string, keyId: string, verdict: Verdict, status: number, at: number) => void
    /** Writes what was counted so far (the flusher does it every `flushMillis`). */
    readonly flush: Effect.Effect<void, StoreUnavailable>
    /** The account's stored buckets in `range`, by key. */
    readonly read: (accountId: string, range: UsageRange) => Effect.Effect<ReadonlyArray<StoredBucket>, StoreUnavailable>
    /** Every account's stored buckets in `range`, summed per bucket. */
    readonly sum: (range: UsageRange) => Effect.Effect<ReadonlyArray<BucketTotals>, StoreUnavailable>
    /** The accounts with most traffic or most refusals in `range`. */
    readonly top: (range: UsageRange, by: "total" | "refused", limit: number) => Effect.Effect<ReadonlyArray<AccountTotals>, StoreUnavailable>
    /** Removes buckets past their retention, now. */
    readonly sweep: Effect.Effect<number, StoreUnavailable>
  }
>()("@petstore/core/Usage") {
  /** Counting, flushing and sweeping while the layer lives; a last flush when it closes. */
  static readonly layer = (options: Partial<UsageOptions> = {}): Layer.Layer<Usage, never, UsageStore | SecureRandom> =>
    Layer.effect(Usage, make({ ...DEFAULT_OPTIONS, ...options }))
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")

/** Builds the usage service over the usage store. @category constructors */
export const make = (options: UsageOptions) =>
  Effect.gen(function*() {
    const store = yield* UsageStore
    const instanceId = hex(yield* Effect.flatMap(SecureRandom, (random) => random.bytes(12)))
    const clock = yield* Clock.Clock
    const counter = UsageCounter.make()
    // Batches made but not yet written, oldest first; each keeps its name until it is written.
    const unsent: Array<FlushBatch> = []
    let seq = 0
    let unsentRows = 0
    const lock = yield* Semaphore.make(1)

    const flush: Effect.Effect<void, StoreUnavailable> = lock.withPermits(1)(Effect.gen(function*() {
      const rows = counter.drain()
      if (rows.length > 0) {
        unsent.push({ instanceId, seq: ++seq, at: clock.currentTimeMillisUnsafe(), rows })
        unsentRows += rows.length
      }
      let dropped = 0
      while (unsentRows > options.maxUnsentRows && unsent.length > 1) {
        dropped += unsent[0]!.rows.length
        unsentRows -= unsent.shift()!.rows.length
      }
      if (dropped > 0) yield* Effect.logWarning(`usage counts: the store has not taken them for long; ${dropped} rows of the oldest dropped`)
      while (unsent.length > 0) {
        yield* store.flush(unsent[0]!)
        unsentRows -= unsent.shift()!.rows.length
      }
    }))

    // The service's clock, read when asked: the flusher's fibers run on wall time.
    const sweep = Effect.suspend(() => {
      const now = clock.currentTimeMillisUnsafe()
      return store.sweep({
        hourlyBefore: now - options.hourlyRetentionMillis,
        dailyBefore: now - options.dailyRetentionMillis,
        flushesBefore: now - FLUSH_NAME_RETENTION_MILLIS
      })
    })

    const logged = <A>(what: string, effect: Effect.Effect<A, StoreUnavailable>) =>
      effect.pipe(Effect.catchCause((cause) => Effect.logWarning(`usage counts: ${what} failed; retrying`, cause)))
    // Wall time, not the service's clock: a test clock jumping days ahead must not replay flushes.
    const wait = (millis: number) => Effect.sleep(Duration.millis(millis))
    const flusher = yield* wait(options.flushMillis).pipe(
      Effect.andThen(logged("flush", flush)),
      Effect.forever,
      Effect.provideService(Clock.Clock, Clock.Clock.defaultValue()),
      Effect.forkDetach
    )
    // A sweep at start, then one every `sweepMillis`.
    const sweeper = yield* logged("sweep", sweep).pipe(
      Effect.andThen(wait(options.sweepMillis)),
      Effect.forever,
      Effect.provideService(Clock.Clock, Clock.Clock.defaultValue()),
      Effect.forkDetach
    )
    // Runs before the store closes (this layer depends on it): what was counted is kept.
    yield* Effect.addFinalizer(() =>
      Effect.andThen(Effect.andThen(Fiber.interrupt(flusher), Fiber.interrupt(sweeper)), logged("last flush", flush))
    )

    return Usage.of({
      record: counter.record,
      flush,
      read: (accountId, range) => store.read(accountId, range.granularity, range.from, range.to),
      sum: (range) => store.sum(range.granularity, range.from, range.to),
      top: (range, by, limit) => store.top(range.granularity, range.from, range.to, by, limit),
      sweep
    })
  })
