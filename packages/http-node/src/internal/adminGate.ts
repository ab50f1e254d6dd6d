/**
 * The admin API's gate: without an admin token it does not exist (404); a request must carry the
 * token (401), compared in constant time (SHA-256 digests of both, so neither the length nor a
 * prefix shows in the time taken); past 20 failed tokens a minute from one address, a request
 * without the right token is refused (429) until its bucket refills. The right token always
 * passes: failures from one address (every operator behind one proxy shares it) must not lock the
 * operators out, and a token of 16 or more token68 characters (≥ 96 bits) is not found by guessing
 * at 20 a minute — the limit bounds the noise of a guesser, not its odds.
 *
 * @since 1.0.0
 */
import { BoundedCache, TokenBucket } from "@petstore/core"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { createHash, timingSafeEqual } from "node:crypto"
import type { AppRequest } from "../AppRequest.js"
import * as ErrorResponse from "../ErrorResponse.js"
import { type Answer, refusal } from "./stages/answer.js"
import { bearerToken } from "./credentials.js"

const FAILURES_PER_MINUTE = 20
/** Addresses whose failures are kept (a flood of addresses cannot grow the record). */
const ADDRESSES_KEPT = 10_000

const LIMITED = ErrorResponse.make(
  "rate_limited",
  "Too many failed admin tokens from this address; retry after `Retry-After` seconds."
)

export interface AdminGateOptions {
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  readonly clientAddress: (request: AppRequest) => string
}

/** The refusal of an admin request at `now` (404, 429 or 401), or `undefined` when it may pass. */
export const make = (options: AdminGateOptions): (request: AppRequest, now: number) => Answer | undefined => {
  const adminDigest = Option.map(options.adminToken, (t) => digest(Redacted.value(t)))
  // Failed tokens per client address, in this process (the admin API is for operators). An entry is
  // never wrong (a bucket refills from its own time); forgetting one when the cache starts over
  // only gives that address its 20 attempts back early.
  const failures = BoundedCache.make<string, TokenBucket.TokenBucketState>(ADDRESSES_KEPT)

  return (request, now) => {
    if (Option.isNone(adminDigest)) return refusal(ErrorResponse.STATIC.routeNotFound)
    const token = bearerToken(request.header("authorization"))
    // Both digests are 32 bytes: the comparison takes the same time whatever the token's length.
    if (token !== undefined && timingSafeEqual(digest(token), adminDigest.value)) return undefined
    const address = options.clientAddress(request)
    const bucket = TokenBucket.refill(
      failures.get(address) ?? TokenBucket.full(FAILURES_PER_MINUTE, now),
      FAILURES_PER_MINUTE,
      now
    )
    const wait = TokenBucket.waitMillis(bucket, FAILURES_PER_MINUTE, 1)
    if (wait > 0) return refusal(LIMITED, { "Retry-After": String(Math.max(1, Math.ceil(wait / 1000))) })
    failures.set(address, TokenBucket.take(bucket, 1))
    return refusal(ErrorResponse.STATIC.unauthorized, { "WWW-Authenticate": "Bearer realm=\"petstore-admin\"" })
  }
}

const digest = (token: string): Buffer => createHash("sha256").update(token).digest()
