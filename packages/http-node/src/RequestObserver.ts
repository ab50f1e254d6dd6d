/**
 * What is observed of every request the application answers, applied once around its dispatch
 * so that every host (node:http, Express, Fastify, Effect, fetch) gets it: the request id
 * (`X-Request-Id`, on the response and on every log line of the request), one access-log line
 * after the answer, the answer's record for metrics (`record`), its count as the account's usage
 * (`count`), and a span when tracing is on.
 *
 * With tracing off no span work is done; the request id goes among the log annotations of the
 * request's fiber. The access line goes straight to the loggers the application was built with, as
 * `Effect.log` would hand it to them.
 *
 * @since 1.0.0
 */

import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import * as AccessLine from "./AccessLine.js"
import type { AppRequest } from "./AppRequest.js"
import type { AppResponse } from "./AppResponse.js"
import * as RequestId from "./internal/requestId.js"
import { pathOf } from "./internal/urlPath.js"
import * as TraceParent from "./internal/traceParent.js"

/** What the request observer records and where. */
export interface ObserveOptions {
  /**
   * One line per request at level Info, through the loggers current when the application is
   * built: requestId, reqId (the host's id, when it has one), method, path, route (also of a request
   * refused before routing), status, clientAddress, durationMs, accountId. Default false (a host often
   * has an access log of its own); the standalone server turns it on (`PETSTORE_ACCESS_LOG`).
   */
  readonly accessLog?: boolean | undefined
  /**
   * A server span per request through Effect's tracer (`@effect/opentelemetry` exports it), the
   * parent of the spans of the store calls made for it, and the child of the caller's span when
   * the request carries a W3C `traceparent`. Default false.
   */
  readonly tracing?: boolean | undefined
  /** The client's address as the access line names it (default: the socket peer). */
  readonly clientAddress?: ((request: AppRequest) => string) | undefined
  /** Told each answer and how long it took, in seconds (request metrics are recorded here, beside the access line). */
  readonly record?: ((response: AppResponse, seconds: number) => void) | undefined
  /** Told each answer, untimed (the account's usage is counted here). */
  readonly count?: ((response: AppResponse) => void) | undefined
}

/** The application's answer to a request. */
export type Handle = (request: AppRequest) => Effect.Effect<AppResponse>

/** `serve`'s answer to `request`, observed. Call it where the request is being run. */
export type Observe = (request: AppRequest, serve: Handle) => Effect.Effect<AppResponse>

/** The message of every access-log line (the facts are its annotations). */
export const ACCESS_MESSAGE = AccessLine.MESSAGE

/** Writes one access line. */
/** Writes the access line of an answer; what is left for loggers that take a log call, as an effect. */
type AccessLog = (request: AppRequest, response: AppResponse, requestId: string, durationMs: number) => Effect.Effect<void> | undefined

/** The path the client asked for, with the host's mount path. */
const requestPath = (request: AppRequest): string => {
  const path = pathOf(request.url)
  return request.basePath === undefined || request.basePath === "" ? path : request.basePath + path
}

const peerAddress = (request: AppRequest): string => request.remoteAddress ?? "unknown"

/** The facts as annotations over `base`, as `Effect.annotateLogs` would add them. */
/** The facts that have a value, as log annotations. */
const annotationsOf = (facts: AccessLine.Facts): Record<string, unknown> => {
  const annotations: Record<string, unknown> = {}
  for (const key of AccessLine.KEYS) {
    const value = facts[key]
    if (value !== undefined) annotations[key] = value
  }
  return annotations
}

/**
 * The access log on the loggers, level and annotations of the fiber building the application,
 * read once; `undefined` when no logger would show a line at level Info.
 *
 * Which logger gets what is decided here, once: a logger with an access writer (`AccessLine`) is
 * handed the facts; the others Effect's log call, whose annotation map is built only for them.
 * Effect's tracer logger, which adds a log to the current span, is left out when the application
 * is built outside any span (it would do nothing with the line). A writer is handed the facts
 * alone: when the building fiber has log annotations of its own, every logger gets the log call,
 * so that the line carries them, for all loggers alike.
 */
const makeAccessLog = (clientAddress: (request: AppRequest) => string): Effect.Effect<AccessLog | undefined> => Effect.gen(function*() {
  const loggers = yield* References.CurrentLoggers
  if (LogLevel.isGreaterThan(yield* References.MinimumLogLevel, "Info")) return undefined
  const annotated = Object.keys(yield* References.CurrentLogAnnotations).length > 0
  const clock = yield* Clock.Clock
  const span = yield* Effect.serviceOption(Tracer.ParentSpan)
  const inSpan = Option.isSome(span) && span.value._tag === "Span"
  const writers: Array<AccessLine.Writer> = []
  const loggersOf: Array<Logger.Logger<unknown, unknown>> = []
  for (const logger of loggers) {
    const writer = annotated ? undefined : AccessLine.writerOf(logger)
    if (writer !== undefined) writers.push(writer)
    else if (logger !== Logger.tracerLogger || inSpan) loggersOf.push(logger)
  }
  if (writers.length === 0 && loggersOf.length === 0) return undefined
  const others = loggersOf.length === 0 ? undefined : new Set(loggersOf)
  return (request, response, requestId, durationMs) => {
    const facts: AccessLine.Facts = {
      requestId,
      reqId: request.hostRequestId,
      method: request.method,
      path: requestPath(request),
      route: response.route ?? response.askedRoute,
      status: response.status,
      clientAddress: clientAddress(request),
      durationMs,
      accountId: response.accountId
    }
    // Whole milliseconds, as a log call's `Date` holds them.
    const millis = Math.trunc(clock.currentTimeMillisUnsafe())
    for (let i = 0; i < writers.length; i++) writers[i]!(facts, millis)
    if (others === undefined) return undefined
    // The other loggers get a log call from the request's fiber (its annotations and span), the facts added.
    return Effect.provideService(Effect.annotateLogs(Effect.logInfo(ACCESS_MESSAGE), annotationsOf(facts)), References.CurrentLoggers, others)
  }
})

const NANOS_PER_SECOND = 1e9

/**
 * The span's name once the route is known: `@effect/opentelemetry`'s span carries the OpenTelemetry
 * span, which can be renamed; any other tracer keeps the method alone (OpenTelemetry's name for a
 * request without a route).
 */
const rename = (span: Tracer.Span, name: string): void => {
  const otel = (span as { readonly span?: { readonly updateName?: unknown } }).span
  if (typeof otel?.updateName === "function") (otel.updateName as (name: string) => void)(name)
}

/** Ends the request's span: error status on 5xx, as OpenTelemetry asks of server spans. */
const endSpan = (span: Tracer.Span, clock: Clock.Clock, exit: Exit.Exit<AppResponse>): void => {
  if (Exit.isFailure(exit)) return span.end(clock.currentTimeNanosUnsafe(), exit)
  const response = exit.value
  span.attribute("http.response.status_code", response.status)
  if (response.route !== undefined) {
    span.attribute("http.route", response.route.slice(response.route.indexOf(" ") + 1))
    rename(span, response.route)
  }
  span.end(clock.currentTimeNanosUnsafe(), response.status >= 500 ? Exit.fail(`HTTP ${response.status}`) : Exit.void)
}

/** `effect` with `requestId` (and the host's id, when it has one) among the annotations of every line it logs. */
const withRequestId = (effect: Effect.Effect<AppResponse>, requestId: string, hostRequestId: string | undefined): Effect.Effect<AppResponse> =>
  Effect.annotateLogs(effect, hostRequestId === undefined ? { requestId } : { requestId, reqId: hostRequestId })

/** Builds the observer of requests (access log, metrics and traces hooks) from `options`. @category constructors */
export const make = (options: ObserveOptions): Effect.Effect<Observe> =>
  Effect.gen(function*() {
    const clock = yield* Clock.Clock
    const accessLog = options.accessLog === true ? yield* makeAccessLog(options.clientAddress ?? peerAddress) : undefined
    const record = options.record
    const count = options.count
    const timed = accessLog !== undefined || record !== undefined

    /** What follows every answer: the id on the response, the access line, the record. */
    const answered = (request: AppRequest, response: AppResponse, requestId: string, start: bigint): Effect.Effect<AppResponse> => {
      response.headers[RequestId.HEADER] = requestId
      let logged: Effect.Effect<void> | undefined
      if (timed) {
        const seconds = Number(clock.currentTimeNanosUnsafe() - start) / NANOS_PER_SECOND
        if (accessLog !== undefined) logged = accessLog(request, response, requestId, Math.round(seconds * 1e6) / 1e3)
        if (record !== undefined) record(response, seconds)
      }
      if (count !== undefined) count(response)
      return logged === undefined ? Effect.succeed(response) : Effect.as(logged, response)
    }

    if (options.tracing !== true) {
      return (request, serve) => {
        const requestId = RequestId.of(request.header("x-request-id"))
        const start = timed ? clock.currentTimeNanosUnsafe() : 0n
        return withRequestId(Effect.flatMap(serve(request), (response) => answered(request, response, requestId, start)), requestId, request.hostRequestId)
      }
    }
    // Traced: the whole request runs in its span, so the spans of store calls are its children.
    return (request, serve) => {
      const requestId = RequestId.of(request.header("x-request-id"))
      const start = clock.currentTimeNanosUnsafe()
      return Effect.flatMap(
        Effect.flatMap(Effect.option(Effect.currentParentSpan), (hostSpan) =>
          Effect.makeSpan(request.method, {
            kind: "server",
            attributes: { "http.request.method": request.method, "request.id": requestId },
            // Under a host's span (an Effect host traces its requests), the span is its child;
            // otherwise the caller's trace (W3C `traceparent`) is continued, or a trace begins.
            ...(hostSpan._tag === "None" ? { parent: TraceParent.parse(request.header("traceparent")) } : {})
          })),
        (span) =>
          Effect.suspend(() => serve(request)).pipe(
            Effect.flatMap((response) => answered(request, response, requestId, start)),
            Effect.withParentSpan(span),
            Effect.annotateLogs(request.hostRequestId === undefined ? { requestId } : { requestId, reqId: request.hostRequestId }),
            Effect.onExit((exit) => Effect.sync(() => endSpan(span, clock, exit)))
          )
      )
    }
  })
