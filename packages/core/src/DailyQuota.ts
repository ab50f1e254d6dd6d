/**
 * A daily request quota that resets at 00:00 UTC.
 *
 * @since 1.0.0
 */

export const DAY_MS = 86_400_000

/** An account's quota for one UTC day: the day and what was used of it. */
export interface DailyQuotaState {
  /** UTC day number (days since the epoch) the count belongs to. */
  readonly day: number
  readonly used: number
}

/** The UTC day number of an epoch-ms instant. */
export const dayOf = (now: number): number => Math.floor(now / DAY_MS)

/** The quota of the day of `now`, nothing used. @category constructors */
export const empty = (now: number): DailyQuotaState => ({ day: dayOf(now), used: 0 })

/** The quota at `now`: a new UTC day starts from zero. */
export const roll = (state: DailyQuotaState, now: number): DailyQuotaState => {
  const day = dayOf(now)
  return day > state.day ? { day, used: 0 } : state
}

/** What is left of `limit` today. */
export const remaining = (state: DailyQuotaState, limit: number): number => Math.max(0, limit - state.used)

/** Whether `cost` more fits within `limit` today. */
export const allows = (state: DailyQuotaState, limit: number, cost: number): boolean => state.used + cost <= limit

/** Epoch ms of the next reset (the next 00:00 UTC). */
export const resetAt = (state: DailyQuotaState): number => (state.day + 1) * DAY_MS

/** The state once `cost` is used. */
export const consume = (state: DailyQuotaState, cost: number): DailyQuotaState => ({
  day: state.day,
  used: state.used + cost
})
