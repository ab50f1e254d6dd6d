/**
 * `/console/session`, the console's one stage (its answers written and recovered as the API's):
 *
 * - `POST` with the admin token (JSON `{"token": …}` or the form field `token`): a new session, its
 *   cookie set (`HttpOnly; SameSite=Strict; Path=/`, `Secure` over HTTPS), `200 {csrfToken,
 *   expiresAt}` (a form post: `303` to the console); the session the request's cookie names, if
 *   any, ends. A wrong token is 401 and counts against the
 *   admin gate's limit of failed tokens (then 429). From a page of another origin: 403.
 * - `GET`: the session of the cookie, `200 {csrfToken, expiresAt}` (a reloaded page recovers its
 *   CSRF token); without one 401; from another origin 403.
 * - `DELETE` with the CSRF token: the session ends on every instance, its cookie is cleared (204).
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { AppRequest } from "../../AppRequest.js"
import type { ResponseHeaders } from "../../AppResponse.js"
import * as ErrorResponse from "../../ErrorResponse.js"
import type { AdminGate } from "../adminGate.js"
import { answer, type Answer, refusal } from "../stages/answer.js"
import type { Gated, Labelled, Start } from "../stages/exchange.js"
import { answerWith, type Outcome, type Stage } from "../stages/pipeline.js"
import { isCrossOrigin, isHttps, isSameOrigin } from "./origin.js"
import { COMMON_HEADERS } from "./pages.js"
import { COOKIE, type Session, type Sessions } from "./sessions.js"

export interface SessionEndpointOptions {
  readonly gate: AdminGate
  readonly sessions: Sessions
  readonly trustProxy: number
  readonly clock: Clock.Clock
  /** How long a session lasts, in seconds (the cookie's `Max-Age`). */
  readonly maxAgeSeconds: number
}

/** The largest sign-in body read (a token is at most a few hundred bytes). */
const BODY_LIMIT = 8 * 1024
const METHODS = "GET, HEAD, POST, DELETE"

const FORBIDDEN = answerWith(refusal(ErrorResponse.STATIC.forbiddenOrigin))
const NO_SESSION = answerWith(refusal(ErrorResponse.STATIC.consoleSessionRequired))
const BAD_CSRF = answerWith(refusal(ErrorResponse.STATIC.consoleCsrfRequired))
const BAD_BODY = answerWith(refusal(ErrorResponse.STATIC.consoleSignInBody))
const TOO_LARGE = answerWith(refusal(ErrorResponse.STATIC.payloadTooLarge, { Connection: "close" }))

const mediaType = (request: AppRequest): string => (request.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase()

/** The token of a sign-in body, `undefined` when the body holds none (or is neither JSON nor a form). */
export const tokenOf = (type: string, text: string): string | undefined => {
  if (type === "application/x-www-form-urlencoded") return new URLSearchParams(text).get("token") ?? undefined
  if (type !== "application/json") return undefined
  try {
    const body = JSON.parse(text) as unknown
    const token = typeof body === "object" && body !== null ? (body as Record<string, unknown>).token : undefined
    return typeof token === "string" ? token : undefined
  } catch {
    return undefined
  }
}

const sessionBody = (session: Session): string =>
  JSON.stringify({ csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt).toISOString() })

export const make = (options: SessionEndpointOptions): Stage<Start, Labelled & Gated> => {
  const cookie = (request: AppRequest, value: string, maxAge: number): string =>
    `${COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}${isHttps(request, options.trustProxy) ? "; Secure" : ""}`
  const now = () => options.clock.currentTimeMillisUnsafe()

  const signIn = (request: AppRequest, basePath: string): Effect.Effect<Outcome, unknown> => {
    if (isCrossOrigin(request, options.trustProxy)) return FORBIDDEN
    return Effect.flatMap(request.readBody(BODY_LIMIT), (body): Effect.Effect<Outcome, unknown> => {
      if (body._tag === "TooLarge") return TOO_LARGE
      if (body._tag === "Consumed") return answerWith(refusal(ErrorResponse.STATIC.bodyConsumed))
      const type = mediaType(request)
      const token = tokenOf(type, Buffer.from(body.bytes).toString("utf8"))
      if (token === undefined) return BAD_BODY
      const refused = options.gate.checkToken(token, request, now(), ErrorResponse.STATIC.consoleWrongToken)
      if (refused !== undefined) return answerWith(refused)
      // A sign-in over a live session's cookie ends that session (a stolen cookie stops working).
      const previous = options.sessions.idOf(request)
      const ended = previous === undefined ? Effect.void : options.sessions.close(previous)
      return Effect.map(Effect.andThen(ended, options.sessions.open(now())), (session): Answer => {
        const headers: ResponseHeaders = { "Set-Cookie": cookie(request, session.id, options.maxAgeSeconds) }
        if (type !== "application/json") return answer(303, undefined, { ...headers, Location: `${basePath}/console` })
        return answer(200, sessionBody(session), headers)
      })
    })
  }

  const read = (request: AppRequest): Effect.Effect<Outcome, unknown> => {
    if (isCrossOrigin(request, options.trustProxy)) return FORBIDDEN
    return Effect.map(options.sessions.find(request, now()), (session) =>
      session === undefined ? refusal(ErrorResponse.STATIC.consoleSessionRequired) : answer(200, sessionBody(session)))
  }

  const signOut = (request: AppRequest): Effect.Effect<Outcome, unknown> => {
    if (!isSameOrigin(request, options.trustProxy)) return FORBIDDEN
    const id = options.sessions.idOf(request)
    if (id === undefined) return NO_SESSION
    if (!options.sessions.csrfMatches(id, request.header("x-csrf-token"))) return BAD_CSRF
    return Effect.as(options.sessions.close(id), answer(204, undefined, { "Set-Cookie": cookie(request, "", 0) }))
  }

  return (exchange) => {
    const { request } = exchange
    const method = request.method === "HEAD" ? "GET" : request.method
    exchange.admission = { ...COMMON_HEADERS, "Cache-Control": "no-store" }
    exchange.route = { template: `${method} /console/session`, headers: undefined }
    switch (method) {
      case "POST":
        return signIn(request, exchange.basePath)
      case "GET":
        return read(request)
      case "DELETE":
        return signOut(request)
      default:
        return answerWith(refusal(ErrorResponse.methodNotAllowed(request.method, METHODS), { Allow: METHODS }))
    }
  }
}
