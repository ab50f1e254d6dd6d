/**
 * A limit per client address, in this process: a token bucket of `perMinute` for each address,
 * decided by `LimitDecision.decideAddress`. The record is bounded: a new address at a full record
 * empties it, which only gives every address its allowance back early (a flood of addresses cannot
 * grow it). An entry is never wrong (a bucket refills from its own time), so forgetting one, or the
 * full ones (`forgetFull`), changes no decision.
 *
 * The rate limiter's failed authentications use it, and so do the HTTP layer's limits of failed
 * admin tokens and of the API reference's files.
 *
 * @since 1.0.0
 */
import * as LimitDecision from "./LimitDecision.js"
import * as TokenBucket from "./TokenBucket.js"

/** A limit per client address: a token bucket of its own for each address seen. @category models */
export interface AddressLimit {
  /** Takes one from `address`'s bucket at `now` when it has one: the decision, with the wait when it has none. */
  readonly decide: (address: string, now: number) => LimitDecision.Decision
  /**
   * Takes one from `address`'s bucket at `now`: `undefined` when there was one, otherwise the whole
   * seconds (at least 1) until there is (`Retry-After`); nothing is taken then.
   */
  readonly take: (address: string, now: number) => number | undefined
  /** Forgets the addresses whose bucket is full again at `now` (they equal an address never seen). */
  readonly forgetFull: (now: number) => void
}

/** A limit of `perMinute` per address, keeping at most `kept` addresses. @category constructors */
export const make = (perMinute: number, kept: number): AddressLimit => {
  const buckets = new Map<string, TokenBucket.TokenBucketState>()
  const decide = (address: string, now: number): LimitDecision.Decision => {
    if (buckets.size >= kept && !buckets.has(address)) buckets.clear()
    const next = LimitDecision.decideAddress(perMinute, buckets.get(address) ?? TokenBucket.full(perMinute, now), now)
    buckets.set(address, next.bucket)
    return next.decision
  }
  return {
    decide,
    take: (address, now) => {
      const decision = decide(address, now)
      return decision.verdict === "allowed" ? undefined : Math.max(1, Math.ceil(decision.retryAfterMillis / 1000))
    },
    forgetFull: (now) => {
      for (const [address, bucket] of buckets) {
        if (TokenBucket.refill(bucket, perMinute, now).units >= perMinute * TokenBucket.UNIT) buckets.delete(address)
      }
    }
  }
}
