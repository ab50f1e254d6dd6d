/**
 * A limit per client address, in this process: a token bucket of `perMinute` for each address, the
 * addresses kept in a `BoundedCache` (a flood of addresses cannot grow the record). An entry is never
 * wrong (a bucket refills from its own time); forgetting one when the cache starts over only gives
 * that address its allowance back early.
 *
 * @internal
 */
import { BoundedCache, TokenBucket } from "@petstore/core"

/** Addresses whose buckets are kept. */
export const ADDRESSES_KEPT = 10_000

export interface AddressLimit {
  /**
   * Takes one from `address`'s bucket at `now`: `undefined` when there was one, otherwise the whole
   * seconds (at least 1) until there is (`Retry-After`); nothing is taken then.
   */
  readonly take: (address: string, now: number) => number | undefined
}

/** @category constructors */
export const make = (perMinute: number): AddressLimit => {
  const buckets = BoundedCache.make<string, TokenBucket.TokenBucketState>(ADDRESSES_KEPT)
  return {
    take: (address, now) => {
      const bucket = TokenBucket.refill(buckets.get(address) ?? TokenBucket.full(perMinute, now), perMinute, now)
      const wait = TokenBucket.waitMillis(bucket, perMinute, 1)
      if (wait > 0) return Math.max(1, Math.ceil(wait / 1000))
      buckets.set(address, TokenBucket.take(bucket, 1))
      return undefined
    }
  }
}
