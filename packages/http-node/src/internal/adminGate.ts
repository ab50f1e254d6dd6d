/**
 * The admin API's gate: without an admin token it does not exist (404); a request must carry the
 * token (401), compared in constant time (SHA-256 digests of both, so neither the length nor a
 * prefix shows in the time taken); past 20 failed tokens a minute from one address, a request
 * without the right token is refused (429) until its bucket refills. The right token always
 * passes: failures from one address (every operator behind one proxy shares it) must not lock the
 * operators out, and a token of 16 or more token68 characters (≥ 96 bits) is not found by guessing
 * at 20 a minute — the limit bounds the noise of a guesser, not its odds.
 */
import { AddressLimit } from "@petstore/core"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { createHash, timingSafeEqual } from "node:crypto"
import type { AppRequest } from "../AppRequest.js"
import * as ErrorResponse from "../ErrorResponse.js"
import { type Answer, refusal } from "./stages/answer.js"
import { bearerToken } from "./credentials.js"

const FAILURES_PER_MINUTE = 20

const LIMITED = ErrorResponse.STATIC.adminTokensLimited
const NO_ADMIN_TOKEN = ErrorResponse.STATIC.adminTokenRequired

export interface AdminGateOptions {
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  readonly clientAddress: (request: AppRequest) => string
}

/** The refusal of an admin request at `now` (404, 429 or 401), or `undefined` when it may pass. */
export const make = (options: AdminGateOptions): (request: AppRequest, now: number) => Answer | undefined => {
  const adminDigest = Option.map(options.adminToken, (t) => digest(Redacted.value(t)))
  // Failed tokens per client address, in this process (the admin API is for operators).
  const failures = AddressLimit.make(FAILURES_PER_MINUTE, 10_000)

  return (request, now) => {
    if (Option.isNone(adminDigest)) return refusal(ErrorResponse.STATIC.routeNotFound)
    const token = bearerToken(request.header("authorization"))
    // Both digests are 32 bytes: the comparison takes the same time whatever the token's length.
    if (token !== undefined && timingSafeEqual(digest(token), adminDigest.value)) return undefined
    const retryAfter = failures.take(options.clientAddress(request), now)
    if (retryAfter !== undefined) return refusal(LIMITED, { "Retry-After": String(retryAfter) })
    return refusal(NO_ADMIN_TOKEN, { "WWW-Authenticate": "Bearer realm=\"petstore-admin\"" })
  }
}

const digest = (token: string): Buffer => createHash("sha256").update(token).digest()
