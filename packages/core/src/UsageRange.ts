/**
 * A range of usage buckets, as a request asks for it, and the buckets of a range zero-filled: one
 * per hour or day from `from` (inclusive) to `to` (exclusive), in order, each the sum of what was
 * stored for it.
 *
 * @since 1.0.0
 */
import * as Result from "effect/Result"
import { add, bucketMillis, bucketStart, type BucketTotals, type Counts, type Granularity, zero } from "./UsageStore.js"

/** A range of time for a usage report, and its granularity. */
export interface UsageRange {
  readonly granularity: Granularity
  /** Epoch ms of the first bucket's start. */
  readonly from: number
  /** Epoch ms of the end of the last bucket (exclusive). */
  readonly to: number
}

/** The most buckets one answer holds: 7 days of hours, 400 days of days. */
export const MAX_BUCKETS: { readonly [G in Granularity]: number } = { hour: 168, day: 400 }

/** Buckets answered when the request names no `from`: the last 24 hours, or the last 30 days. */
export const DEFAULT_BUCKETS: { readonly [G in Granularity]: number } = { hour: 24, day: 30 }

/** One bucket of an answer. */
export interface Bucket {
  readonly start: number
  readonly counts: Counts
}

/**
 * The range a request asks for at `now`: `from` rounded down and `to` rounded up to whole buckets;
 * `to` defaults to the end of the current bucket, `from` to `DEFAULT_BUCKETS` before `to`. A range
 * that is empty or longer than `MAX_BUCKETS` is refused with the reason.
 */
export const resolve = (request: {
  readonly granularity: Granularity
  readonly from?: number | undefined
  readonly to?: number | undefined
  readonly now: number
}): Result.Result<UsageRange, string> => {
  const { granularity } = request
  const size = bucketMillis(granularity)
  const to = request.to === undefined
    ? bucketStart(granularity, request.now) + size
    : Math.ceil(request.to / size) * size
  const from = request.from === undefined ? to - DEFAULT_BUCKETS[granularity] * size : bucketStart(granularity, request.from)
  if (from >= to) return Result.fail("from must be before to")
  if ((to - from) / size > MAX_BUCKETS[granularity]) {
    return Result.fail(
      `the range holds more than ${MAX_BUCKETS[granularity]} buckets of one ${granularity}; ask for a shorter range${granularity === "hour" ? " or granularity=day" : ""}`
    )
  }
  return Result.succeed({ granularity, from, to })
}

/** The buckets of `range`, zero-filled and in order, each the sum of the stored buckets that start at it. */
export const fill = (range: UsageRange, stored: ReadonlyArray<BucketTotals>): ReadonlyArray<Bucket> => {
  const size = bucketMillis(range.granularity)
  const sums = new Map<number, Counts>()
  for (const b of stored) {
    if (b.start >= range.from && b.start < range.to) sums.set(b.start, add(sums.get(b.start) ?? zero, b.counts))
  }
  const out: Array<Bucket> = []
  for (let start = range.from; start < range.to; start += size) out.push({ start, counts: sums.get(start) ?? zero })
  return out
}
