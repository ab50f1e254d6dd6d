/**
 * The usage answer on the wire, shared by `GET /v1/usage` and the admin API: the schemas, the
 * range read from the query (`from`, `to`, `granularity`; 400 beyond the bounds), and the answer
 * built from the core's zero-filled buckets.
 */
import { DailyQuota, type LimitDecision, type Plan, type Usage, UsageRange, UsageStore } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { Iso8601 } from "./dateTime.js"
import { integer1To100 } from "./operations/endpoint.js"
import { InvalidInput, UsageNotCounted } from "../ErrorResponse.js"

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const UsageBucket = Schema.Struct({
  start: Schema.String.annotate({ description: "Start of the bucket (UTC, ISO 8601); it lasts an hour or a day." }),
  total: Count.annotate({ description: "Decided requests: allowed + rateLimited + quotaExceeded + banned." }),
  allowed: Count,
  rateLimited: Count,
  quotaExceeded: Count,
  banned: Count,
  clientErrors: Count.annotate({ description: "Allowed requests answered 4xx." }),
  serverErrors: Count.annotate({ description: "Allowed requests answered 5xx." })
})

export const MinuteLimit = Schema.Struct({
  limit: Count,
  remaining: Count,
  reset: Schema.String.annotate({ description: "When the bucket is full again (ISO 8601)." })
})

export const DayLimit = Schema.Struct({
  limit: Count,
  used: Count,
  remaining: Count,
  reset: Schema.String.annotate({ description: "The next 00:00 UTC (ISO 8601), when the daily quota resets." })
})

export const Granularity = Schema.Literals(["hour", "day"])

export const UsageReport = Schema.Struct({
  accountId: Schema.String,
  granularity: Granularity,
  buckets: Schema.Array(UsageBucket),
  limits: Schema.Struct({ minute: MinuteLimit, day: DayLimit })
})

/** The query of a usage request. */
export const UsageParams = Schema.Struct({
  from: Schema.optionalKey(Iso8601.annotate({ description: "Start of the range (inclusive; rounded down to its bucket). Default: 24 buckets (hour) or 30 (day) before `to`." })),
  to: Schema.optionalKey(Iso8601.annotate({ description: "End of the range (exclusive; rounded up to a bucket). Default: the end of the current bucket." })),
  granularity: Schema.optionalKey(Granularity.annotate({ description: "Bucket size: `hour` (default; at most 168 buckets) or `day` (at most 400)." }))
})

const iso = (ms: number): string => new Date(ms).toISOString()

/** The range a query asks for at `now`, or the 400 that says why not. */
export const rangeOf = (
  params: typeof UsageParams.Type,
  now: number
): Result.Result<UsageRange.UsageRange, InvalidInput> =>
  Result.mapError(
    UsageRange.resolve({
      granularity: params.granularity ?? "hour",
      from: params.from === undefined ? undefined : Date.parse(params.from),
      to: params.to === undefined ? undefined : Date.parse(params.to),
      now
    }),
    (reason) => new InvalidInput({ location: "query", reason })
  )

/**
 * The usage service and the range the query asks for at `now`, for the admin's reads of usage: 404
 * when the server counts no usage, 400 for a range out of bounds.
 */
export const countedRange = (
  usage: Option.Option<Usage.Usage["Service"]>,
  params: typeof UsageParams.Type,
  now: number
): Effect.Effect<readonly [Usage.Usage["Service"], UsageRange.UsageRange], UsageNotCounted | InvalidInput> => {
  if (Option.isNone(usage)) return Effect.fail(new UsageNotCounted())
  const range = rangeOf(params, now)
  return Result.isFailure(range) ? Effect.fail(range.failure) : Effect.succeed([usage.value, range.success] as const)
}

/** One bucket on the wire. */
export const bucketOf = (bucket: UsageRange.Bucket): typeof UsageBucket.Type => ({
  start: iso(bucket.start),
  total: UsageStore.total(bucket.counts),
  ...bucket.counts
})

/** The limits as the decision that admitted the request states them. */
export const limitsOf = (decision: LimitDecision.Decision | undefined, limits: Plan.PlanLimits, now: number) => {
  const minute = decision?.limits.find((l) => l.name === "minute")
  const day = decision?.limits.find((l) => l.name === "day")
  const dayRemaining = day?.remaining ?? limits.perDay
  return {
    minute: { limit: limits.perMinute, remaining: minute?.remaining ?? limits.perMinute, reset: iso(minute?.fullAt ?? now) },
    day: {
      limit: limits.perDay,
      used: Math.max(0, limits.perDay - dayRemaining),
      remaining: dayRemaining,
      reset: iso((DailyQuota.dayOf(decision?.at ?? now) + 1) * DailyQuota.DAY_MS)
    }
  }
}

/** The admin API's answer for an account: the account's own shape, its limits as the plan states them, and the buckets of each key. */
export const AdminUsageReport = Schema.Struct({
  accountId: Schema.String,
  granularity: Granularity,
  buckets: Schema.Array(UsageBucket),
  limits: Schema.Struct({
    minute: Schema.Struct({ limit: Count }),
    day: DayLimit.annotate({ description: "`used`: today's allowed requests as counted so far (written every few seconds)." })
  }),
  byKey: Schema.Array(Schema.Struct({
    keyId: Schema.String,
    prefix: Schema.String.annotate({ description: "The key's display prefix." }),
    buckets: Schema.Array(UsageBucket)
  })).annotate({
    description: "At most `keys` of the account's keys (default 10), the busiest in the range first (then by id); " +
      "keys without traffic are zero-filled."
  }),
  keysTotal: Count.annotate({ description: "The account's keys and the keys with traffic in the range: `byKey` lists the first `keys` of them." })
})

/** The query of an account's usage (admin): the range, and how many keys `byKey` lists. */
export const AdminUsageParams = Schema.Struct({
  ...UsageParams.fields,
  keys: Schema.optionalKey(
    integer1To100
      .annotate({ description: "How many keys `byKey` lists at most (1..100, default 10), the busiest first." })
  )
})

/** The keys `byKey` lists when the query does not say. */
export const DEFAULT_KEYS = 10

/** The first `limit` of `keyIds`, the busiest in `stored` first (most decided requests), ties by id. */
export const busiest = (keyIds: ReadonlyArray<string>, stored: ReadonlyArray<UsageStore.StoredBucket>, limit: number): Array<string> => {
  const totals = new Map<string, number>()
  for (const b of stored) totals.set(b.keyId, (totals.get(b.keyId) ?? 0) + UsageStore.total(b.counts))
  return [...keyIds]
    .sort((a, b) => (totals.get(b) ?? 0) - (totals.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, limit)
}

/** The query of the busiest accounts. */
export const TopParams = Schema.Struct({
  ...UsageParams.fields,
  by: Schema.optionalKey(Schema.Literals(["total", "refused"]).annotate({ description: "Rank by every decided request (default) or by those refused (rate limit, quota, ban)." })),
  limit: Schema.optionalKey(
    integer1To100
  )
})

export const TopUsage = Schema.Struct({
  by: Schema.Literals(["total", "refused"]),
  granularity: Granularity,
  from: Schema.String,
  to: Schema.String,
  accounts: Schema.Array(Schema.Struct({ accountId: Schema.String, total: Count, refused: Count }))
})

/** Today's allowed requests in `buckets` of a day (the daily quota's use as counted so far). */
export const usedToday = (stored: ReadonlyArray<UsageStore.StoredBucket>, today: number): number =>
  stored.reduce((n, b) => (b.start === today ? n + b.counts.allowed : n), 0)

export { iso }
