/**
 * The first two stages of a public request: authenticate (the key's principal, or none) → admit
 * (the limiter's decision: for the key's account, or for the address of a request without a valid
 * key). A request refused here is answered 401 or 429 with its rate-limit headers; an admitted
 * one goes on to `serve` with those headers as its admission.
 *
 * @since 1.0.0
 */
import { type Accounts, type LimitDecision, type RateLimiter, Sync } from "@petstore/core"
import * as Exit from "effect/Exit"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AppRequest } from "../AppRequest.js"
import type { AppResponse, ResponseHeaders } from "../AppResponse.js"
import * as ErrorResponse from "../ErrorResponse.js"
import * as RateLimitHeaders from "./rateLimitHeaders.js"
import { type Answer, refusal, write } from "./answer.js"
import { bearerToken } from "./credentials.js"
import { guardedResponse } from "./recover.js"

const REJECTION: Record<Exclude<LimitDecision.Verdict, "allowed">, ErrorResponse.ErrorResult> = {
  rate_limited: ErrorResponse.make("rate_limited", "Rate limit exceeded; retry after the number of seconds in Retry-After."),
  daily_quota_exceeded: ErrorResponse.make(
    "daily_quota_exceeded",
    "Daily quota exhausted; it resets at 00:00 UTC (see Retry-After)."
  ),
  key_banned: ErrorResponse.make(
    "key_banned",
    "This key kept sending while told to wait and is temporarily banned; retry after the number of seconds in Retry-After."
  )
}
const FAILED_AUTH_LIMITED = ErrorResponse.make(
  "rate_limited",
  "Too many requests without a valid API key from this address; retry after the number of seconds in Retry-After."
)
const CHALLENGE = { "WWW-Authenticate": "Bearer realm=\"petstore\"" }
const INVALID_TOKEN_CHALLENGE = { "WWW-Authenticate": "Bearer realm=\"petstore\", error=\"invalid_token\"" }
const NO_PRINCIPAL = Exit.succeed(Option.none<Accounts.Principal>())

/** The rate-limit headers of `decision`, a new record: the admission's headers of the response. */
const limitHeaders = (decision: LimitDecision.Decision): ResponseHeaders => {
  const headers: ResponseHeaders = {}
  RateLimitHeaders.write(headers, decision)
  return headers
}

export interface AdmissionOptions {
  readonly accounts: Accounts.Accounts["Type"]
  readonly limiter: RateLimiter.RateLimiter["Type"]
  readonly clientAddress: (request: AppRequest) => string
}

/**
 * Serves an admitted request: the principal whose key was accepted → the answer. It answers what
 * escapes its own stages itself (`serveRoute` guards them), so its answer keeps the admission's headers.
 */
export type Serve = (principal: Accounts.Principal) => Effect.Effect<Answer>

/**
 * The response to a public `request` at `now`: authenticated and admitted, then `serve`d. The key
 * check and the limiter answer at once when their adapters can (in memory, a cache, a synchronous
 * read); `Sync` then runs the next stage without a fiber.
 */
export const make = (options: AdmissionOptions) => {
  const { accounts, limiter } = options

  /** Stage authenticate: the principal of the request's key; none without a valid key. */
  const authenticate = (token: string | undefined, now: number): Effect.Effect<Option.Option<Accounts.Principal>, unknown> =>
    token === undefined ? NO_PRINCIPAL : accounts.verifyAt(token, now)

  /** Stage admit, without a valid key: 401, or 429 once the address's failed attempts are spent. */
  const refuseUnknown = (request: AppRequest, token: string | undefined, now: number): Effect.Effect<AppResponse, unknown> =>
    Sync.map(limiter.admitFailedAuth(options.clientAddress(request), now), (decision) =>
      write(
        decision.verdict !== "allowed"
          ? refusal(FAILED_AUTH_LIMITED)
          : refusal(ErrorResponse.STATIC.unauthorized, token === undefined ? CHALLENGE : INVALID_TOKEN_CHALLENGE),
        limitHeaders(decision)
      ))

  /** Stage admit, with a valid key: the limiter decides at the request's time; allowed, the request is served. */
  const admit = (principal: Accounts.Principal, now: number, serve: Serve): Effect.Effect<AppResponse, unknown> =>
    Sync.flatMap(limiter.admit(principal, now), (decision) => {
      const admission = limitHeaders(decision)
      const answer = decision.verdict === "allowed" ? serve(principal) : Exit.succeed(refusal(REJECTION[decision.verdict]))
      return Sync.map(answer, (answer) => write(answer, admission, principal.accountId))
    })

  return (request: AppRequest, now: number, serve: Serve): Effect.Effect<AppResponse> => {
    const token = bearerToken(request.header("authorization"))
    return guardedResponse(() =>
      Sync.flatMap(authenticate(token, now), (principal) =>
        Option.isNone(principal) ? refuseUnknown(request, token, now) : admit(principal.value, now, serve))
    )
  }
}
