/**
 * A token bucket in exact integer arithmetic. One token is 60 000 units and a bucket of capacity C
 * gains C units per millisecond, i.e. C tokens per minute, so refills, waits and "back to full"
 * times are exact for millisecond clocks (no floating-point drift can break a retry that waited).
 *
 * @since 1.0.0
 */

/** Units per token (the number of milliseconds in a minute). */
export const UNIT = 60_000

/** A token bucket: the tokens it holds and when it was last filled. */
export interface TokenBucketState {
  /** Units in the bucket at `at`. */
  readonly units: number
  /** Epoch ms of the last refill. */
  readonly at: number
}

/** A full bucket. @category constructors */
export const full = (capacity: number, now: number): TokenBucketState => ({ units: capacity * UNIT, at: now })

/** The bucket at `now`; a clock that went backwards refills nothing. */
export const refill = (state: TokenBucketState, capacity: number, now: number): TokenBucketState =>
  now <= state.at ? state : { units: Math.min(capacity * UNIT, state.units + (now - state.at) * capacity), at: now }

/** Whole tokens available. */
export const tokens = (state: TokenBucketState): number => Math.floor(state.units / UNIT)

/** Milliseconds until `cost` tokens are available (0 when they already are). */
export const waitMillis = (state: TokenBucketState, capacity: number, cost: number): number => {
  const missing = cost * UNIT - state.units
  return missing <= 0 ? 0 : Math.ceil(missing / capacity)
}

/** Milliseconds until the bucket is full again. */
export const millisUntilFull = (state: TokenBucketState, capacity: number): number =>
  Math.ceil((capacity * UNIT - state.units) / capacity)

/** Takes `cost` tokens; the caller has checked they are there. */
export const take = (state: TokenBucketState, cost: number): TokenBucketState => ({
  units: state.units - cost * UNIT,
  at: state.at
})
