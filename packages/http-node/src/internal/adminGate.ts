/**
 * The admin API's gate: without an admin token it does not exist (404); a request must carry the
 * token (401), compared in constant time (SHA-256 digests of both, so neither the length nor a
 * prefix shows in the time taken); past 20 failed tokens a minute from one address, a request
 * without the right token is refused (429) until its bucket refills. The right token always
 * passes: failures from one address (every operator behind one proxy shares it) must not lock the
 * operators out, and a token of 16 or more token68 characters (≥ 96 bits) is not found by guessing
 * at 20 a minute — the limit bounds the noise of a guesser, not its odds.
 *
 * With the console on, a request without `Authorization` may carry the console's session cookie
 * instead: it passes only from the server's own origin (else 403 `forbidden_origin`), with the
 * session's CSRF token in `X-CSRF-Token` and a session that has not ended (else 401). The console's
 * sign-in checks its token here too, so its wrong tokens count against the same limit.
 */
import { AddressLimit } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { createHash, timingSafeEqual } from "node:crypto"
import type { AppRequest } from "../AppRequest.js"
import * as ErrorResponse from "../ErrorResponse.js"
import { type Answer, refusal } from "./stages/answer.js"
import { bearerToken } from "./credentials.js"
import { isSameOrigin } from "./console/origin.js"
import type { Sessions } from "./console/sessions.js"

const FAILURES_PER_MINUTE = 20

const LIMITED = ErrorResponse.STATIC.adminTokensLimited
const NO_ADMIN_TOKEN = ErrorResponse.STATIC.adminTokenRequired
const NOT_FOUND = refusal(ErrorResponse.STATIC.routeNotFound)
const FORBIDDEN_ORIGIN = refusal(ErrorResponse.STATIC.forbiddenOrigin)
const BAD_CSRF = refusal(ErrorResponse.STATIC.consoleCsrfRequired)
const SESSION_ENDED = refusal(ErrorResponse.STATIC.consoleSessionRequired)

export interface AdminGateOptions {
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  readonly clientAddress: (request: AppRequest) => string
  /** The console's sessions, whose cookie the gate accepts in place of the token (absent: the console is off). */
  readonly console?: { readonly sessions: Sessions; readonly trustProxy: number } | undefined
}

export interface AdminGate {
  /** The refusal of an admin request at `now` (404, 403, 429 or 401), or `undefined` when it may pass. */
  readonly refuse: (request: AppRequest, now: number) => Effect.Effect<Answer | undefined, unknown>
  /**
   * The refusal of `token` offered by `request` at `now` (429 past the limit, else `wrong`), or
   * `undefined` when it is the admin token. A wrong token counts against the limit.
   */
  readonly checkToken: (token: string | undefined, request: AppRequest, now: number, wrong: ErrorResponse.ErrorResult) => Answer | undefined
}

/** Makes the gate (with its own count of failed tokens per client address, in this process). */
export const make = (options: AdminGateOptions): AdminGate => {
  const adminDigest = Option.map(options.adminToken, (t) => digest(Redacted.value(t)))
  const failures = AddressLimit.make(FAILURES_PER_MINUTE, 10_000)

  const checkToken: AdminGate["checkToken"] = (token, request, now, wrong) => {
    if (Option.isNone(adminDigest)) return NOT_FOUND
    // Both digests are 32 bytes: the comparison takes the same time whatever the token's length.
    if (token !== undefined && timingSafeEqual(digest(token), adminDigest.value)) return undefined
    const retryAfter = failures.take(options.clientAddress(request), now)
    if (retryAfter !== undefined) return refusal(LIMITED, { "Retry-After": String(retryAfter) })
    return refusal(wrong, wrong === NO_ADMIN_TOKEN ? { "WWW-Authenticate": "Bearer realm=\"petstore-admin\"" } : undefined)
  }

  const byCookie = (cookies: NonNullable<AdminGateOptions["console"]>, id: string, request: AppRequest, now: number) => {
    if (!isSameOrigin(request, cookies.trustProxy)) return Effect.succeed(FORBIDDEN_ORIGIN)
    if (!cookies.sessions.csrfMatches(id, request.header("x-csrf-token"))) return Effect.succeed(BAD_CSRF)
    return Effect.map(cookies.sessions.find(request, now), (session) => (session === undefined ? SESSION_ENDED : undefined))
  }

  return {
    checkToken,
    refuse: (request, now) => {
      const authorization = request.header("authorization")
      const cookies = options.console
      if (authorization === undefined && cookies !== undefined && Option.isSome(adminDigest)) {
        const id = cookies.sessions.idOf(request)
        if (id !== undefined) return byCookie(cookies, id, request, now)
      }
      return Effect.succeed(checkToken(bearerToken(authorization), request, now, NO_ADMIN_TOKEN))
    }
  }
}

const digest = (token: string): Buffer => createHash("sha256").update(token).digest()
