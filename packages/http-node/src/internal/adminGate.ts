/**
 * The admin API's gate: without an admin token it does not exist (404); a request must carry the
 * token (401), compared in constant time; and past 20 failed tokens a minute from one address,
 * every admin request from it is refused (429) until its bucket refills, so a guesser learns nothing.
 *
 * @since 1.0.0
 */
import { BoundedCache, TokenBucket } from "@petstore/core"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { timingSafeEqual } from "node:crypto"
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
  const adminToken = Option.map(options.adminToken, (t) => Buffer.from(Redacted.value(t)))
  // Failed tokens per client address, in this process (the admin API is for operators). An entry is
  // never wrong (a bucket refills from its own time); forgetting one when the cache starts over
  // only gives that address its 20 attempts back early.
  const failures = BoundedCache.make<string, TokenBucket.TokenBucketState>(ADDRESSES_KEPT)

  const authorized = (request: AppRequest): boolean => {
    if (Option.isNone(adminToken)) return false
    const token = bearerToken(request.header("authorization"))
    if (token === undefined) return false
    const given = Buffer.from(token)
    return given.length === adminToken.value.length && timingSafeEqual(given, adminToken.value)
  }

  return (request, now) => {
    if (Option.isNone(adminToken)) return refusal(ErrorResponse.STATIC.routeNotFound)
    const address = options.clientAddress(request)
    const bucket = TokenBucket.refill(
      failures.get(address) ?? TokenBucket.full(FAILURES_PER_MINUTE, now),
      FAILURES_PER_MINUTE,
      now
    )
    const wait = TokenBucket.waitMillis(bucket, FAILURES_PER_MINUTE, 1)
    if (wait > 0) return refusal(LIMITED, { "Retry-After": String(Math.max(1, Math.ceil(wait / 1000))) })
    if (!authorized(request)) {
      failures.set(address, TokenBucket.take(bucket, 1))
      return refusal(ErrorResponse.STATIC.unauthorized, { "WWW-Authenticate": "Bearer realm=\"petstore-admin\"" })
    }
    return undefined
  }
}
