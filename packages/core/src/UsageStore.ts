/**
 * Storage of usage counts: per account, per key and per time bucket (hour and day), one count per
 * outcome. Writes are additive upserts in batches (`flush`), each batch named by its instance and
 * sequence number and recorded in the same transaction, so a batch written twice (a retry after an
 * answer that was lost) counts once. Adapters implement this interface; `makeMemory` is the
 * in-memory one.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { StoreUnavailable } from "./Errors.js"

/** The counters of a bucket, in storage order: the four decisions, then the allowed answers that were errors. */
export const COUNTERS = ["allowed", "rateLimited", "quotaExceeded", "banned", "clientErrors", "serverErrors"] as const
/** The name of one counter of a usage bucket. */
export type Counter = typeof COUNTERS[number]

/** One count per counter. */
export type Counts = { readonly [K in Counter]: number }

/** An hour in milliseconds. */
export const HOUR_MILLIS = 3_600_000
/** A day in milliseconds. */
export const DAY_MILLIS = 86_400_000

/** The size of a usage bucket. */
export type Granularity = "hour" | "day"

/** The length of a bucket of `granularity`, in ms. */
export const bucketMillis = (granularity: Granularity): number => (granularity === "hour" ? HOUR_MILLIS : DAY_MILLIS)

/** The start of the bucket of `granularity` that holds `at` (UTC). */
export const bucketStart = (granularity: Granularity, at: number): number => {
  const size = bucketMillis(granularity)
  return Math.floor(at / size) * size
}

/** The counts of one key in one hour, as an instance flushes them. */
export interface UsageRow {
  readonly accountId: string
  readonly keyId: string
  /** Epoch ms of the hour's start. */
  readonly hour: number
  readonly counts: Counts
}

/** One flush of an instance: its rows, named by `(instanceId, seq)` so that writing it twice counts once. */
export interface FlushBatch {
  readonly instanceId: string
  readonly seq: number
  /** When the batch was made (epoch ms): flush names older than the retention of names may be swept. */
  readonly at: number
  readonly rows: ReadonlyArray<UsageRow>
}

/** The stored counts of one key in one bucket. */
export interface StoredBucket extends BucketTotals {
  readonly keyId: string
}

/** Counts in one bucket, whoever made them: a key's (`StoredBucket`) or every account's summed (`sum`). */
export interface BucketTotals {
  /** Epoch ms of the bucket's start. */
  readonly start: number
  readonly counts: Counts
}

/** An account's traffic over a range: everything, and what was refused (rate, quota, ban). */
export interface AccountTotals {
  readonly accountId: string
  readonly total: number
  readonly refused: number
}

/** What the sweep removes: hourly rows before `hourlyBefore`, daily before `dailyBefore`, flush names before `flushesBefore`. */
export interface SweepCutoffs {
  readonly hourlyBefore: number
  readonly dailyBefore: number
  readonly flushesBefore: number
}

/** Counts of zero. */
export const zero: Counts = { allowed: 0, rateLimited: 0, quotaExceeded: 0, banned: 0, clientErrors: 0, serverErrors: 0 }

/** `a + b`, counter by counter. */
export const add = (a: Counts, b: Counts): Counts => ({
  allowed: a.allowed + b.allowed,
  rateLimited: a.rateLimited + b.rateLimited,
  quotaExceeded: a.quotaExceeded + b.quotaExceeded,
  banned: a.banned + b.banned,
  clientErrors: a.clientErrors + b.clientErrors,
  serverErrors: a.serverErrors + b.serverErrors
})

/** Every decided request: the four decisions (errors are among the allowed). */
export const total = (c: Counts): number => c.allowed + c.rateLimited + c.quotaExceeded + c.banned

/** The refused requests: rate limit, quota and ban. */
export const refused = (c: Counts): number => c.rateLimited + c.quotaExceeded + c.banned

/** The port of the usage counts, which each store implements. @category services */
export class UsageStore extends Context.Service<
  UsageStore,
  {
    /**
     * Adds the batch's rows to the hourly and the daily buckets, in one transaction with the batch's
     * name; a batch whose name is already recorded changes nothing. Answers whether it was applied.
     */
    readonly flush: (batch: FlushBatch) => Effect.Effect<boolean, StoreUnavailable>
    /** The account's stored buckets of `granularity` starting in `[from, to)`, by key, in no particular order. */
    readonly read: (
      accountId: string,
      granularity: Granularity,
      from: number,
      to: number
    ) => Effect.Effect<ReadonlyArray<StoredBucket>, StoreUnavailable>
    /** Every account's counts of `granularity` starting in `[from, to)`, summed per bucket, in no particular order (empty buckets left out). */
    readonly sum: (granularity: Granularity, from: number, to: number) => Effect.Effect<ReadonlyArray<BucketTotals>, StoreUnavailable>
    /** The `limit` accounts with most traffic (`total`) or most refusals (`refused`) in `[from, to)`, most first, ties by id. */
    readonly top: (
      granularity: Granularity,
      from: number,
      to: number,
      by: "total" | "refused",
      limit: number
    ) => Effect.Effect<ReadonlyArray<AccountTotals>, StoreUnavailable>
    /** Removes what is older than the cutoffs; answers how many rows went. */
    readonly sweep: (cutoffs: SweepCutoffs) => Effect.Effect<number, StoreUnavailable>
  }
>()("@petstore/core/UsageStore") {
  static readonly layerMemory = Layer.sync(UsageStore, () => makeMemory())
}

/** Orders totals as `top` answers them. */
export const rank = (
  totals: ReadonlyArray<AccountTotals>,
  by: "total" | "refused",
  limit: number
): ReadonlyArray<AccountTotals> =>
  totals
    .filter((t) => t[by] > 0)
    .sort((a, b) => b[by] - a[by] || (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0))
    .slice(0, limit)

interface MemoryBucket {
  readonly accountId: string
  readonly keyId: string
  readonly start: number
  counts: Counts
}

/** The usage counts in process memory. @category constructors */
export const makeMemory = (): UsageStore["Service"] => {
  const tables = { hour: new Map<string, MemoryBucket>(), day: new Map<string, MemoryBucket>() }
  const flushes = new Map<string, number>()
  const addTo = (table: Map<string, MemoryBucket>, row: UsageRow, start: number) => {
    const id = `${row.accountId}\u0000${row.keyId}\u0000${start}`
    const bucket = table.get(id)
    if (bucket === undefined) table.set(id, { accountId: row.accountId, keyId: row.keyId, start, counts: row.counts })
    else bucket.counts = add(bucket.counts, row.counts)
  }
  const sweepTable = (table: Map<string, { readonly start: number }>, before: number) => {
    let removed = 0
    for (const [id, bucket] of table) {
      if (bucket.start < before) {
        table.delete(id)
        removed++
      }
    }
    return removed
  }
  return {
    flush: (batch) =>
      Effect.sync(() => {
        const name = `${batch.instanceId}\u0000${batch.seq}`
        if (flushes.has(name)) return false
        flushes.set(name, batch.at)
        for (const row of batch.rows) {
          addTo(tables.hour, row, row.hour)
          addTo(tables.day, row, bucketStart("day", row.hour))
        }
        return true
      }),
    read: (accountId, granularity, from, to) =>
      Effect.sync(() => {
        const out: Array<StoredBucket> = []
        for (const b of tables[granularity].values()) {
          if (b.accountId === accountId && b.start >= from && b.start < to) out.push({ keyId: b.keyId, start: b.start, counts: b.counts })
        }
        return out
      }),
    sum: (granularity, from, to) =>
      Effect.sync(() => {
        const sums = new Map<number, Counts>()
        for (const b of tables[granularity].values()) {
          if (b.start >= from && b.start < to) sums.set(b.start, add(sums.get(b.start) ?? zero, b.counts))
        }
        return [...sums].map(([start, counts]) => ({ start, counts }))
      }),
    top: (granularity, from, to, by, limit) =>
      Effect.sync(() => {
        const sums = new Map<string, Counts>()
        for (const b of tables[granularity].values()) {
          if (b.start >= from && b.start < to) sums.set(b.accountId, add(sums.get(b.accountId) ?? zero, b.counts))
        }
        return rank([...sums].map(([accountId, c]) => ({ accountId, total: total(c), refused: refused(c) })), by, limit)
      }),
    sweep: ({ dailyBefore, flushesBefore, hourlyBefore }) =>
      Effect.sync(() => {
        let removed = sweepTable(tables.hour, hourlyBefore) + sweepTable(tables.day, dailyBefore)
        for (const [name, at] of flushes) {
          if (at < flushesBefore) {
            flushes.delete(name)
            removed++
          }
        }
        return removed
      })
  }
}
