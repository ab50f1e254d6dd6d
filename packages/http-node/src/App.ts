/**
 * The application: one request in, one response out, in the order the interface fixes:
 * authentication (401) → ban and rate limit (429) → routing (404, 405) → body size (413) →
 * validation (400) → the operation. Everything that does not depend on the request (routes,
 * decoders, documents, static answers) is built once here, when the layer is built.
 *
 * @since 1.0.0
 */
import { Accounts, type LimitDecision, type MessageQueue, type Pets, RateLimiter, Sync, TokenBucket } from "@petstore/core"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { timingSafeEqual } from "node:crypto"
import * as Admin from "./Admin.js"
import { AdminApi } from "./AdminApi.js"
import { makeApi, PUBLIC_PREFIX } from "./Api.js"
import * as ApiReference from "./ApiReference.js"
import type { AppRequest } from "./AppRequest.js"
import { type AppResponse, JSON_CONTENT_TYPE, type ResponseHeaders } from "./AppResponse.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Health from "./Health.js"
import * as JsonBody from "./JsonBody.js"
import * as OpenApiDocument from "./OpenApiDocument.js"
import * as Operations from "./Operations.js"
import * as RateLimitHeaders from "./RateLimitHeaders.js"
import * as RequestObserver from "./RequestObserver.js"
import * as Routes from "./Routes.js"

type FindResult<Ctx> = NonNullable<ReturnType<Routes.RouteTable<Ctx, ErrorResponse.OperationError>["find"]>>

/** The paths of an application with the message example at `/v1` and the admin API enabled. */
export const DEFAULT_PATHS: ReadonlyArray<string> = ["/docs", "/v1/", "/admin/"]

/** The paths `app` answers (see `App.paths`). */
export const pathsOf = (app: App["Type"]): ReadonlyArray<string> => app.paths ?? DEFAULT_PATHS

/** Largest accepted request body. */
export const BODY_LIMIT = 64 * 1024

export interface AppOptions {
  readonly quickstartBasePath: `/${string}`
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  /** Proxies in front of the server that append to `X-Forwarded-For` (0: use the socket peer). */
  readonly trustProxy: number
  readonly servers: ReadonlyArray<{ readonly url: string; readonly description: string }>
  /** The access log and tracing (both off by default); every response carries `X-Request-Id`. */
  readonly observe?: RequestObserver.ObserveOptions | undefined
  /**
   * Metrics served at `GET /metrics` to the admin token (with the admin API's failed-token limits);
   * absent, or no admin token: `/metrics` is an unknown path.
   */
  readonly metrics?: { readonly scrape: Effect.Effect<string>; readonly contentType: string } | undefined
}

/** @category services */
export class App extends Context.Tag("@petstore/http-node/App")<
  App,
  {
    /**
     * The answer to `request`; the request's time is read from the Clock when `handle` is called.
     * Call it when the request is to be answered and run its result once: the steps that can
     * answer at once (the key, the limiter, an in-memory write or read) run during the call.
     */
    readonly handle: (request: AppRequest) => Effect.Effect<AppResponse>
    /**
     * The paths the application answers: exact paths, and prefixes ending in "/". A host that
     * mounts it next to routes of its own hands it these. Absent (an application that wraps
     * another's `handle`): `DEFAULT_PATHS`.
     */
    readonly paths?: ReadonlyArray<string> | undefined
    /** Makes `/readyz` answer 503 from now on: the server hosting it has begun to shut down. */
    readonly startDraining?: (() => void) | undefined
  }
>() {
  static readonly layer = (options: AppOptions): Layer.Layer<App, never, AppServices> => Layer.effect(App, make(options))
}

const BEARER = /^bearer ([A-Za-z0-9\-._~+/]+=*)$/i

/** The token of a well-formed `Bearer` Authorization header: scheme (any case), one space, a token. */
export const bearerToken = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const match = BEARER.exec(header)
  return match === null ? undefined : match[1]
}

const isJson = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  const semi = contentType.indexOf(";")
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === JSON_CONTENT_TYPE
}


const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** Browsers ask every origin for `/favicon.ico`: no icon, no key needed, and not asked again for a week. */
const noFavicon = (): AppResponse => ({ status: 204, headers: { "Cache-Control": "public, max-age=604800" }, body: undefined })

const json = (status: number, body: string | undefined, headers: ResponseHeaders): AppResponse => {
  if (body !== undefined) headers["Content-Type"] = JSON_CONTENT_TYPE
  return { status, headers, body }
}

const failure = (error: ErrorResponse.ErrorResult, headers: ResponseHeaders): AppResponse =>
  json(error.status, error.body, headers)

/** Notes the route that answered on the response, for logs and metrics (every response is a new object). */
const labelRoute = (template: string) => (response: AppResponse): AppResponse => {
  response.route = template
  return response
}

/** Notes the account whose key was accepted on the response, for logs and metrics. */
const labelAccount = (accountId: string) => (response: AppResponse): AppResponse => {
  response.accountId = accountId
  return response
}

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
/** The answer to a request without a valid key: 401, or 429 once its address's failed attempts are spent. */
const unauthenticated = (headers: ResponseHeaders, token: string | undefined, decision: LimitDecision.Decision): AppResponse => {
  RateLimitHeaders.write(headers, decision)
  if (decision.verdict !== "allowed") return failure(FAILED_AUTH_LIMITED, headers)
  headers["WWW-Authenticate"] = token === undefined
    ? "Bearer realm=\"petstore\""
    : "Bearer realm=\"petstore\", error=\"invalid_token\""
  return failure(ErrorResponse.STATIC.unauthorized, headers)
}

const ADMIN_AUTH_LIMITED = ErrorResponse.make(
  "rate_limited",
  "Too many failed admin tokens from this address; retry after `Retry-After` seconds."
)
const FAILED_AUTH_LIMITED = ErrorResponse.make(
  "rate_limited",
  "Too many requests without a valid API key from this address; retry after the number of seconds in Retry-After."
)

/** The core services the application serves. */
export type AppServices = Accounts.Accounts | RateLimiter.RateLimiter | Pets.Pets | MessageQueue.MessageQueue

/** @category constructors */
export const make = (options: AppOptions): Effect.Effect<App["Type"], never, AppServices> =>
  Effect.gen(function*() {
    const accounts = yield* Accounts.Accounts
    const limiter = yield* RateLimiter.RateLimiter
    const api = makeApi(options.quickstartBasePath)

    const publicRoutes = Routes.table(
      Routes.compile<Routes.RouteContext, ErrorResponse.OperationError>(api, {
        ...(yield* Operations.animals),
        ...(yield* Operations.messages)
      })
    )
    const adminRoutes = Routes.table(
      Routes.compile<Admin.AdminContext, ErrorResponse.OperationError>(AdminApi, yield* Admin.handlers)
    )
    const routeHeaders: Record<string, ResponseHeaders> = {
      getPet: Operations.getPetLifecycleHeaders("")
    }
    /** Headers of a route that link to other paths, for an application mounted under `basePath`. */
    const mountedRouteHeaders: Record<string, (basePath: string) => ResponseHeaders> = {
      getPet: Operations.getPetLifecycleHeaders
    }

    const document = OpenApiDocument.make({ api, servers: options.servers })
    const openApiJson = JSON.stringify(document)
    const openApiPath = `${PUBLIC_PREFIX}/openapi.json` as const
    const reference = ApiReference.make({ document, openApiPath })
    const OPENAPI_ROUTE = `GET ${openApiPath}`
    const DOCS_ROUTE = "GET /docs"
    const FAVICON_ROUTE = "GET /favicon.ico"
    const adminToken = Option.map(options.adminToken, (t) => Buffer.from(Redacted.value(t)))
    /** The open document is a route too: other methods on it are 405 (after authentication, like any route). */
    const staticAllowed = (url: string): string | undefined => (pathOf(url) === openApiPath ? "GET, HEAD" : undefined)

    /**
     * What escaped the pipeline becomes 503 (a failure: the store) or 500 (a defect), logged, with the
     * headers already written (the rate-limit ones above all) kept.
     */
    const recover = (headers: ResponseHeaders) => (program: Effect.Effect<AppResponse, unknown>): Effect.Effect<AppResponse> =>
      program.pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.as(
              Effect.logError("request failed", Cause.squash(cause)),
              failure(
                Option.isSome(Cause.failureOption(cause)) ? ErrorResponse.STATIC.unavailable : ErrorResponse.STATIC.internal,
                headers
              )
            )
        ),
        Effect.orDie
      )

    /**
     * Runs the steps of a request that may answer at once: an answer that is already there is kept
     * as it is (no fiber needed); anything else, including a defect thrown by a step run at once,
     * goes through `recover`.
     */
    const guarded = (headers: ResponseHeaders, steps: () => Effect.Effect<AppResponse, unknown>): Effect.Effect<AppResponse> => {
      let answer: Effect.Effect<AppResponse, unknown>
      try {
        answer = steps()
      } catch (defect) {
        answer = Effect.die(defect)
      }
      return Exit.isExit(answer) && Exit.isSuccess(answer) ? answer as Exit.Exit<AppResponse> : recover(headers)(answer)
    }

    const clientAddress = (request: AppRequest): string => {
      const peer = request.remoteAddress ?? "unknown"
      if (options.trustProxy === 0) return peer
      const forwarded = request.header("x-forwarded-for")
      if (forwarded === undefined) return peer
      const hops = forwarded.split(",").map((s) => s.trim()).filter((s) => s.length > 0)
      return hops[Math.max(0, hops.length - options.trustProxy)] ?? peer
    }

    /** Validation and the operation, once the route and the body are known. */
    const operate = <Ctx>(
      found: FindResult<Ctx>,
      payload: unknown,
      headers: ResponseHeaders,
      context: (path: string) => Ctx
    ): Effect.Effect<AppResponse> => {
      const route = found.handler
      const input: Record<string, unknown> = {}
      if (route.decodePath !== undefined) {
        const path = route.decodePath(found.params)
        if (Either.isLeft(path)) return Effect.succeed(failure(ErrorResponse.make("invalid_request", path.left.message), headers))
        input.path = path.right
      }
      if (route.decodeQuery !== undefined) {
        const query = route.decodeQuery(found.searchParams)
        if (Either.isLeft(query)) return Effect.succeed(failure(ErrorResponse.make("invalid_request", query.left.message), headers))
        input.urlParams = query.right
      }
      if (route.decodePayload !== undefined) {
        const decoded = route.decodePayload(payload)
        if (Either.isLeft(decoded)) {
          return Effect.succeed(failure(ErrorResponse.make("invalid_request", decoded.left.message), headers))
        }
        input.payload = decoded.right
      }
      // Run here, where the request is answered: an operation over work that completes at once (an
      // in-memory write or read, see `Sync.now`) is answered without a fiber.
      return Sync.match(Sync.now(route.handler(input, context(route.path))), {
        onFailure: (error) => failure(ErrorResponse.fromOperationError(error), headers),
        onSuccess: (reply) => {
          if (reply.headers !== undefined) Object.assign(headers, reply.headers)
          return json(
            route.successStatus,
            route.successStatus === 204 ? undefined : reply.encoded ?? JSON.stringify(reply.value),
            headers
          )
        }
      })
    }

    /** Routing, body, validation and the operation, shared by the public and the admin API. */
    const serve = <Ctx extends { readonly path: string }>(
      request: AppRequest,
      routes: Routes.RouteTable<Ctx, ErrorResponse.OperationError>,
      headers: ResponseHeaders,
      context: (path: string) => Ctx,
      emptyBodyIsObject: boolean
    ): Effect.Effect<AppResponse> => {
      const found = routes.find(request.method, request.url)
      return found === undefined
        ? unrouted(request, routes, headers)
        : Sync.map(
          // Guarded here, inside the label, so that a 5xx of a route names its route too.
          guarded(headers, () => serveRoute(request, found, headers, context, emptyBodyIsObject)),
          labelRoute(found.handler.template)
        )
    }

    /** 404 for a path no route has, 405 with `Allow` for a route asked with another method. */
    const unrouted = <Ctx>(
      request: AppRequest,
      routes: Routes.RouteTable<Ctx, ErrorResponse.OperationError>,
      headers: ResponseHeaders
    ): Effect.Effect<AppResponse> => {
      const allow = routes.allowed(request.url) ?? staticAllowed(request.url)
      if (allow === undefined) return Effect.succeed(failure(ErrorResponse.STATIC.routeNotFound, headers))
      headers["Allow"] = allow
      return Effect.succeed(failure(
        ErrorResponse.make("method_not_allowed", `${request.method} is not allowed here; allowed: ${allow}.`),
        headers
      ))
    }

    /** The body, validation and the operation of a routed request. */
    const serveRoute = <Ctx>(
      request: AppRequest,
      found: FindResult<Ctx>,
      headers: ResponseHeaders,
      context: (path: string) => Ctx,
      emptyBodyIsObject: boolean
    ): Effect.Effect<AppResponse> => {
      const extra = request.basePath
        ? mountedRouteHeaders[found.handler.name]?.(request.basePath)
        : routeHeaders[found.handler.name]
      if (extra !== undefined) Object.assign(headers, extra)
      if (!found.handler.hasPayload) return operate(found, undefined, headers, context)

      return Sync.flatMap(request.readBody(BODY_LIMIT), (body): Effect.Effect<AppResponse> => {
        if (body._tag === "TooLarge") {
          headers["Connection"] = "close"
          return Effect.succeed(failure(ErrorResponse.STATIC.payloadTooLarge, headers))
        }
        if (body._tag === "Consumed") {
          return Effect.as(
            Effect.logError("a request body was read by the host server before it reached the pet store"),
            failure(ErrorResponse.STATIC.bodyConsumed, headers)
          )
        }
        if (body.bytes.length === 0 && emptyBodyIsObject) return operate(found, {}, headers, context)
        if (!isJson(request.header("content-type"))) {
          return Effect.succeed(failure(ErrorResponse.STATIC.unsupportedMediaType, headers))
        }
        const payload = JsonBody.parse(body.bytes)
        if (Either.isLeft(payload)) return Effect.succeed(failure(ErrorResponse.make("invalid_json", payload.left), headers))
        return operate(found, payload.right, headers, context)
      })
    }

    // The runtime's Clock (a TestClock under test), read once per request, synchronously.
    const clock = yield* Effect.clock

    // Written as plain flatMap chains: on the hot path they cost measurably less than a generator.
    const servePublic = (request: AppRequest) => {
      const headers: ResponseHeaders = {}
      const token = bearerToken(request.header("authorization"))
      const now = clock.unsafeCurrentTimeMillis()
      // The limiter and the key check answer at once when their adapters can (in memory, a cache,
      // a synchronous read); `Sync` then runs the next step without a fiber.
      const admitted = (principal: Option.Option<Accounts.Principal>): Effect.Effect<AppResponse, unknown> => {
        if (Option.isNone(principal)) {
          return Sync.map(limiter.admitFailedAuth(clientAddress(request), now), (decision) => unauthenticated(headers, token, decision))
        }
        // The limiter decides at the time read above: one clock reading per request.
        const answer = Sync.flatMap(limiter.admit(principal.value, now), (decision) => {
          RateLimitHeaders.write(headers, decision)
          if (decision.verdict !== "allowed") return Effect.succeed(failure(REJECTION[decision.verdict], headers))
          const base = request.basePath ?? ""
          return serve(request, publicRoutes, headers, (path) => ({ path: base + path, principal: principal.value }), false)
        })
        return Sync.map(answer, labelAccount(principal.value.accountId))
      }
      return guarded(headers, () =>
        token === undefined ? admitted(Option.none()) : Sync.flatMap(accounts.verifyAt(token, now), admitted)
      )
    }

    const adminAuthorized = (request: AppRequest): boolean => {
      if (Option.isNone(adminToken)) return false
      const token = bearerToken(request.header("authorization"))
      if (token === undefined) return false
      const given = Buffer.from(token)
      return given.length === adminToken.value.length && timingSafeEqual(given, adminToken.value)
    }

    // Failed admin tokens per client address (20 a minute): past the limit every admin request from the address,
    // with a valid token or not, is refused until the bucket refills, so a guesser learns nothing.
    // Kept in this process (the admin API is for operators); forgotten wholesale past 10,000 addresses.
    const adminFailures = new Map<string, TokenBucket.TokenBucketState>()
    const ADMIN_FAILURES_PER_MINUTE = 20

    /** The refusal of an admin request (404 without an admin token, 429 past the failures, 401), or none. */
    const adminRefusal = (request: AppRequest): AppResponse | undefined => {
      if (Option.isNone(adminToken)) return failure(ErrorResponse.STATIC.routeNotFound, {})
      const now = clock.unsafeCurrentTimeMillis()
      const address = clientAddress(request)
      const bucket = TokenBucket.refill(
        adminFailures.get(address) ?? TokenBucket.full(ADMIN_FAILURES_PER_MINUTE, now),
        ADMIN_FAILURES_PER_MINUTE,
        now
      )
      const wait = TokenBucket.waitMillis(bucket, ADMIN_FAILURES_PER_MINUTE, 1)
      if (wait > 0) return failure(ADMIN_AUTH_LIMITED, { "Retry-After": String(Math.max(1, Math.ceil(wait / 1000))) })
      if (!adminAuthorized(request)) {
        if (adminFailures.size >= 10_000) adminFailures.clear()
        adminFailures.set(address, TokenBucket.take(bucket, 1))
        return failure(ErrorResponse.STATIC.unauthorized, { "WWW-Authenticate": "Bearer realm=\"petstore-admin\"" })
      }
      return undefined
    }

    const serveAdmin = (request: AppRequest) => {
      const refusal = adminRefusal(request)
      if (refusal !== undefined) return Effect.succeed(refusal)
      const headers: ResponseHeaders = { "Cache-Control": "no-store" }
      return guarded(headers, () => serve(request, adminRoutes, headers, (path) => ({ path }), true))
    }

    // Readiness ports come with the stores' adapters when they have them (read here, absent: up).
    const health = yield* Health.make
    const METRICS_ROUTE = "GET /metrics"
    const metrics = options.metrics
    const serveMetrics = (request: AppRequest, scrape: Effect.Effect<string>, contentType: string): Effect.Effect<AppResponse> => {
      const refusal = adminRefusal(request)
      if (refusal !== undefined) return Effect.succeed(refusal)
      return Effect.map(scrape, (body): AppResponse => ({
        status: 200,
        headers: { "Content-Type": contentType, "Cache-Control": "no-store" },
        body,
        route: METRICS_ROUTE
      })).pipe(recover({ "Cache-Control": "no-store" }), Effect.map(labelRoute(METRICS_ROUTE)))
    }

    const handle = (request: AppRequest): Effect.Effect<AppResponse> => {
      const path = pathOf(request.url)
      if (path === Health.HEALTH_PATH || path === Health.READY_PATH) return health.answer(request.method, path)
      if (metrics !== undefined && path === "/metrics" && (request.method === "GET" || request.method === "HEAD")) {
        return serveMetrics(request, metrics.scrape, metrics.contentType)
      }
      return (request.method === "GET" || request.method === "HEAD") && path === openApiPath
        ? Effect.succeed(labelRoute(OPENAPI_ROUTE)(json(200, openApiJson, {})))
        : (request.method === "GET" || request.method === "HEAD") && path === "/docs"
        ? Effect.map(reference.answer(request.url), labelRoute(DOCS_ROUTE))
        : (request.method === "GET" || request.method === "HEAD") && path === "/favicon.ico"
        ? Effect.succeed(labelRoute(FAVICON_ROUTE)(noFavicon()))
        : path === "/admin" || path.startsWith("/admin/")
        ? serveAdmin(request)
        : servePublic(request)
    }
    const paths = new Set([Health.HEALTH_PATH, Health.READY_PATH, "/docs", `${PUBLIC_PREFIX}/`, `${options.quickstartBasePath.replace(/\/$/, "")}/`])
    if (Option.isSome(adminToken)) paths.add("/admin/")
    if (Option.isSome(adminToken) && metrics !== undefined) paths.add("/metrics")
    const observe = yield* RequestObserver.make(options.observe ?? {})
    return App.of({ handle: observe(handle), paths: [...paths], startDraining: health.startDraining })
  })
