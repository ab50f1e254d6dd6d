/**
 * Stage admit: the limiter decides for the key's account (429 when it refuses), or, for a request
 * without a valid key, for its address (401, or 429 once the address's failed attempts are spent).
 * Either way the decision's rate-limit headers go on every answer from here on.
 */
import * as Effect from "effect/Effect"
import { type LimitDecision, type RateLimiter } from "@petstore/core"
import type { AppRequest } from "../../AppRequest.js"
import type { ResponseHeaders } from "../../AppResponse.js"
import * as ErrorResponse from "../../ErrorResponse.js"
import * as RateLimitHeaders from "../rateLimitHeaders.js"
import { refusal } from "./answer.js"
import type { Admitted, Authenticated, Start } from "./exchange.js"
import { answerWith, type Draft, type Outcome, type Stage } from "./pipeline.js"

const REJECTION = {
  rate_limited: refusal(ErrorResponse.STATIC.rateLimited),
  daily_quota_exceeded: refusal(ErrorResponse.STATIC.dailyQuotaExceeded),
  key_banned: refusal(ErrorResponse.STATIC.keyBanned)
} as const
// A known, active key of a suspended account: refused before the limiter (nothing is counted), and
// without `WWW-Authenticate` (the credentials are fine; another key of the account would fare no better).
const SUSPENDED = answerWith(refusal(ErrorResponse.STATIC.accountSuspended))
const FAILED_AUTH_LIMITED = refusal(ErrorResponse.STATIC.failedAuthLimited)
const NO_KEY = refusal(ErrorResponse.STATIC.unauthorized, { "WWW-Authenticate": "Bearer realm=\"petstore\"" })
const INVALID_KEY = refusal(ErrorResponse.STATIC.unauthorized, {
  "WWW-Authenticate": "Bearer realm=\"petstore\", error=\"invalid_token\""
})

/** The rate-limit headers of `decision`, a new record: the admission's headers of the response. */
const limitHeaders = (decision: LimitDecision.Decision): ResponseHeaders => {
  const headers: ResponseHeaders = {}
  RateLimitHeaders.write(headers, decision)
  return headers
}

export interface AdmitOptions {
  readonly limiter: RateLimiter.RateLimiter["Service"]
  readonly clientAddress: (request: AppRequest) => string
}

export const make = ({ clientAddress, limiter }: AdmitOptions): Stage<Start & Authenticated, Admitted> => {
  /** Without a valid key: 401, or 429 once the address's failed attempts are spent. */
  const refuseUnknown = (exchange: Start & Authenticated & Draft<Admitted>) =>
    Effect.map(limiter.admitFailedAuth(clientAddress(exchange.request)), (decision): Outcome => {
      exchange.admission = limitHeaders(decision)
      if (decision.verdict !== "allowed") return FAILED_AUTH_LIMITED
      return exchange.token === undefined ? NO_KEY : INVALID_KEY
    })

  return (exchange) => {
    const principal = exchange.principal
    if (principal === undefined) return refuseUnknown(exchange)
    if (principal.suspended) {
      exchange.accountId = principal.accountId
      return SUSPENDED
    }
    return Effect.map(limiter.admit(principal), (decision): Outcome => {
      exchange.admission = limitHeaders(decision)
      exchange.accountId = principal.accountId
      exchange.decision = decision
      return decision.verdict === "allowed" ? undefined : REJECTION[decision.verdict]
    })
  }
}
