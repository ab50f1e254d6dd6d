/**
 * The rate-limit decision: a pure function of (state, now, cost) → (state', decision). The
 * per-minute token bucket and the daily quota are checked together and consumed together, so a
 * rejected request consumes nothing from either. Stores only keep the state.
 *
 * @since 1.0.0
 */
import * as BanPolicy from "./BanPolicy.js"
import * as DailyQuota from "./DailyQuota.js"
import type { PlanLimits } from "./Plan.js"
import * as TokenBucket from "./TokenBucket.js"

/** What the limiter decided for a request. */
export type Verdict = "allowed" | "rate_limited" | "daily_quota_exceeded" | "key_banned"

/** One limit's numbers after the decision. */
export interface LimitStatus {
  readonly name: "minute" | "day"
  /** Requests the limit admits in its window (the bucket capacity, or the daily quota). */
  readonly quota: number
  /** Window of the limit in seconds (60 or 86 400). */
  readonly windowSeconds: number
  readonly remaining: number
  /** Epoch ms at which the limit is back to full. */
  readonly fullAt: number
}

/** The limiter's answer to one request: the verdict and what the rate-limit headers say. */
export interface Decision {
  readonly verdict: Verdict
  /**
   * The instant (epoch ms) the decision was made at: the request's Clock reading, or the clock of a
   * shared limiter (Redis `TIME`), so that every instance derives the same headers from it.
   */
  readonly at: number
  /** Milliseconds the client must wait before a retry can pass; 0 when allowed. */
  readonly retryAfterMillis: number
  /** The limit closest to exhaustion (fewest requests remaining; the later reset on a tie). */
  readonly binding: LimitStatus
  /** Every limit that applied, for the `RateLimit-Policy` and `RateLimit` fields. */
  readonly limits: ReadonlyArray<LimitStatus>
}

/** The usage an account carries between decisions. */
export interface AccountUsage {
  readonly bucket: TokenBucket.TokenBucketState
  readonly quota: DailyQuota.DailyQuotaState
}

/** A fresh account: full bucket, nothing used today. */
export const freshUsage = (limits: PlanLimits, now: number): AccountUsage => ({
  bucket: TokenBucket.full(limits.perMinute, now),
  quota: DailyQuota.empty(now)
})

const statuses = (limits: PlanLimits, usage: AccountUsage, now: number) => {
  const minute: LimitStatus = {
    name: "minute",
    quota: limits.perMinute,
    windowSeconds: 60,
    remaining: TokenBucket.tokens(usage.bucket),
    fullAt: now + TokenBucket.millisUntilFull(usage.bucket, limits.perMinute)
  }
  const day: LimitStatus = {
    name: "day",
    quota: limits.perDay,
    windowSeconds: 86_400,
    remaining: DailyQuota.remaining(usage.quota, limits.perDay),
    fullAt: usage.quota.used === 0 ? now : DailyQuota.resetAt(usage.quota)
  }
  const binding = minute.remaining < day.remaining ||
      (minute.remaining === day.remaining && minute.fullAt >= day.fullAt)
    ? minute
    : day
  return { binding, limits: [minute, day] }
}

/**
 * Decides one request of `cost` for a key of an account. `standing` is the key's ban standing.
 * Banned keys are refused without touching the account's usage.
 */
export const decide = (
  limits: PlanLimits,
  usage: AccountUsage,
  standing: BanPolicy.KeyStanding,
  now: number,
  cost: number,
  banOptions: BanPolicy.BanPolicyOptions
): { readonly usage: AccountUsage; readonly standing: BanPolicy.KeyStanding; readonly decision: Decision } => {
  const bucket = TokenBucket.refill(usage.bucket, limits.perMinute, now)
  const quota = DailyQuota.roll(usage.quota, now)
  const current: AccountUsage = bucket === usage.bucket && quota === usage.quota ? usage : { bucket, quota }

  if (BanPolicy.isBanned(standing, now)) {
    return { usage: current, standing, decision: banned(limits, current, standing, now) }
  }

  const bucketWait = TokenBucket.waitMillis(bucket, limits.perMinute, cost)
  const quotaOk = DailyQuota.allows(quota, limits.perDay, cost)
  if (bucketWait === 0 && quotaOk) {
    const next: AccountUsage = { bucket: TokenBucket.take(bucket, cost), quota: DailyQuota.consume(quota, cost) }
    return {
      usage: next,
      standing: BanPolicy.onAdmitted(standing),
      decision: { verdict: "allowed", retryAfterMillis: 0, at: now, ...statuses(limits, next, now) }
    }
  }

  const verdict: Verdict = quotaOk ? "rate_limited" : "daily_quota_exceeded"
  const wait = quotaOk ? bucketWait : Math.max(bucketWait, DailyQuota.resetAt(quota) - now)
  const rejected = BanPolicy.onRejected(standing, now, wait, banOptions)
  if (rejected.banned) {
    return { usage: current, standing: rejected.standing, decision: banned(limits, current, rejected.standing, now) }
  }
  return {
    usage: current,
    standing: rejected.standing,
    decision: { verdict, retryAfterMillis: wait, at: now, ...statuses(limits, current, now) }
  }
}

/**
 * The decision a verdict reached at `now` reads as, from the usage after it: what a store that
 * decides elsewhere (a Redis script) hands back is turned into the same `Decision` as `decide`'s.
 * `bannedUntil` matters only for `key_banned`.
 */
export const describe = (
  limits: PlanLimits,
  usage: AccountUsage,
  now: number,
  verdict: Verdict,
  retryAfterMillis: number,
  bannedUntil: number
): Decision =>
  verdict === "key_banned"
    ? banned(limits, usage, { ...BanPolicy.CLEAN, bannedUntil }, now)
    : { verdict, retryAfterMillis, at: now, ...statuses(limits, usage, now) }

const banned = (limits: PlanLimits, usage: AccountUsage, standing: BanPolicy.KeyStanding, now: number): Decision => {
  const s = statuses(limits, usage, now)
  const binding: LimitStatus = { ...s.binding, remaining: 0, fullAt: Math.max(s.binding.fullAt, standing.bannedUntil) }
  return { verdict: "key_banned", retryAfterMillis: standing.bannedUntil - now, at: now, limits: s.limits, binding }
}

/**
 * The per-address bucket that limits failed authentication (no quota, no ban).
 */
export const decideAddress = (
  perMinute: number,
  bucket: TokenBucket.TokenBucketState,
  now: number
): { readonly bucket: TokenBucket.TokenBucketState; readonly decision: Decision } => {
  const refilled = TokenBucket.refill(bucket, perMinute, now)
  const wait = TokenBucket.waitMillis(refilled, perMinute, 1)
  const next = wait === 0 ? TokenBucket.take(refilled, 1) : refilled
  return { bucket: next, decision: describeAddress(perMinute, next, now, wait) }
}

/** The decision on a failed authentication, from the address's bucket after it and the wait (0: allowed). */
export const describeAddress = (
  perMinute: number,
  next: TokenBucket.TokenBucketState,
  now: number,
  wait: number
): Decision => {
  const minute: LimitStatus = {
    name: "minute",
    quota: perMinute,
    windowSeconds: 60,
    remaining: TokenBucket.tokens(next),
    fullAt: now + TokenBucket.millisUntilFull(next, perMinute)
  }
  return { verdict: wait === 0 ? "allowed" : "rate_limited", retryAfterMillis: wait, at: now, binding: minute, limits: [minute] }
}
