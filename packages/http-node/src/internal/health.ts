/**
 * The health endpoints, for load balancers and orchestrators: outside `/v1`, without a key, at
 * exact paths only, and touching no rate-limit bucket.
 * - `/healthz`: 200 while the process serves; nothing else is asked.
 * - `/readyz`: 200 when the store and the rate limiter answer (`Readiness.probe`: one probe at a
 *   time, its answer shared for a second); 503 `unavailable` naming what does not, and 503 from
 *   the moment the server starts draining on shutdown.
 */
import { Readiness } from "@petstore/core"
import * as Effect from "effect/Effect"
import { type AppResponse, JSON_CONTENT_TYPE } from "../AppResponse.js"
import * as ErrorResponse from "../ErrorResponse.js"

export const HEALTH_PATH = "/healthz"
export const READY_PATH = "/readyz"

/** Seconds a client is told to wait before asking `/readyz` again: the life of a shared answer. */
const RETRY_AFTER = "1"

export interface Health {
  /** The answer to `method` on `path`, one of `HEALTH_PATH` and `READY_PATH`. */
  readonly answer: (method: string, path: string) => Effect.Effect<AppResponse>
  /** From now on `/readyz` answers 503: the server is shutting down. */
  readonly startDraining: () => void
  /** Whether `startDraining` was called. */
  readonly draining: () => boolean
}

/** Health answers reads only. */
const READS = "GET, HEAD"

const notAllowed = (method: string): AppResponse => {
  const error = ErrorResponse.methodNotAllowed(method, READS)
  return { status: error.status, headers: { "Content-Type": JSON_CONTENT_TYPE, Allow: READS }, body: error.body }
}

const unavailable = (error: ErrorResponse.ErrorResult): AppResponse => {
  return {
    status: error.status,
    headers: { "Content-Type": JSON_CONTENT_TYPE, "Cache-Control": "no-store", "Retry-After": RETRY_AFTER },
    body: error.body,
    route: `GET ${READY_PATH}`
  }
}

const ok = (body: string, route: string): AppResponse => ({
  status: 200,
  headers: { "Content-Type": JSON_CONTENT_TYPE, "Cache-Control": "no-store" },
  body,
  route
})

const ALIVE = JSON.stringify({ status: "ok" })
const DRAINING = ErrorResponse.STATIC.shuttingDown

/** The 200 or 503 answer to a readiness report. */
const readyAnswer = (report: Readiness.Report): AppResponse =>
  report.ready
    ? ok(
      JSON.stringify({
        status: "ready",
        checks: report.checks,
        ...(report.reasons.length > 0 ? { degraded: report.reasons } : {})
      }),
      `GET ${READY_PATH}`
    )
    : unavailable(ErrorResponse.notReady(report.reasons))

/**
 * The endpoints over `probe`, the readiness of the ports (see `Readiness.watch`).
 *
 * @category constructors
 */
export const make = (probe: Effect.Effect<Readiness.Report>): Health => {
  let draining = false
  const readiness = Effect.map(probe, (report) => (draining ? unavailable(DRAINING) : readyAnswer(report)))
  return {
    answer: (method, path) =>
      method !== "GET" && method !== "HEAD"
        ? Effect.succeed(notAllowed(method))
        : path === HEALTH_PATH
        ? Effect.succeed(ok(ALIVE, `GET ${HEALTH_PATH}`))
        : draining
        ? Effect.succeed(unavailable(DRAINING))
        : readiness,
    startDraining: () => {
      draining = true
    },
    draining: () => draining
  }
}
