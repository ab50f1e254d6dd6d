/**
 * The application: one request in, one response out, in the order the interface fixes. A public
 * request goes through named stages, each in its own module:
 *
 * 1. `admission`: authenticate (401) → admit, the ban and rate limit (429);
 * 2. `serveRoute`: route (404, 405) → read body (413, 400) → decode (400) → operate;
 * 3. `answer.write`: the response, each stage's headers merged once.
 *
 * The admin API takes the same route stages behind its own gate (`adminGate`); health, metrics,
 * the document and its page are answered before any of them. Everything that does not depend on
 * the request (routes, decoders, documents, static answers) is built once here, when the layer is
 * built.
 *
 * @since 1.0.0
 */
import { Accounts, type MessageQueue, type Pets, RateLimiter, Sync } from "@petstore/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Admin from "./internal/adminOperations.js"
import { AdminApi } from "./AdminApi.js"
import { makeApi, PUBLIC_PREFIX } from "./Api.js"
import * as ApiReference from "./internal/apiReference.js"
import type { AppRequest } from "./AppRequest.js"
import type { AppResponse } from "./AppResponse.js"
import type * as ErrorResponse from "./ErrorResponse.js"
import * as Health from "./internal/health.js"
import * as AdminGate from "./internal/adminGate.js"
import * as Admission from "./internal/admission.js"
import { answer, write } from "./internal/answer.js"
import { clientAddress } from "./internal/credentials.js"
import * as Limits from "./internal/limits.js"
import { guardedResponse } from "./internal/recover.js"
import * as ServeRoute from "./internal/serveRoute.js"
import * as OpenApiDocument from "./OpenApiDocument.js"
import * as Operations from "./internal/operations.js"
import * as RequestObserver from "./RequestObserver.js"
import * as Routes from "./internal/routes.js"

/** The paths of an application with the message example at `/v1` and the admin API enabled. */
export const DEFAULT_PATHS: ReadonlyArray<string> = ["/docs", "/v1/", "/admin/"]

/** The paths `app` answers (see `App.paths`). */
export const pathsOf = (app: App["Type"]): ReadonlyArray<string> => app.paths ?? DEFAULT_PATHS

/** Largest accepted request body, in bytes. */
export const BODY_LIMIT = Limits.BODY_LIMIT

export interface AppOptions {
  readonly quickstartBasePath: `/${string}`
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  /** Proxies in front of the server that append to `X-Forwarded-For` (0: use the socket peer). */
  readonly trustProxy: number
  /** The prefix length IPv6 client addresses are grouped by for failed-authentication limits (default 64). */
  readonly ipv6Subnet?: number | undefined
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

/** The core services the application serves. */
export type AppServices = Accounts.Accounts | RateLimiter.RateLimiter | Pets.Pets | MessageQueue.MessageQueue

const isRead = (method: string): boolean => method === "GET" || method === "HEAD"

const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** Notes the route that answered on the response, for logs and metrics (every response is a new object). */
const labelled = (route: string) => (response: AppResponse): AppResponse => {
  response.route = route
  return response
}

const labelMetrics = labelled("GET /metrics")
const labelDocs = labelled("GET /docs")

/** Browsers ask every origin for `/favicon.ico`: no icon, no key needed, and not asked again for a week. */
const noFavicon = (): AppResponse => ({
  status: 204,
  headers: { "Cache-Control": "public, max-age=604800" },
  body: undefined,
  route: "GET /favicon.ico"
})

/** @category constructors */
export const make = (options: AppOptions): Effect.Effect<App["Type"], never, AppServices> =>
  Effect.gen(function*() {
    const api = makeApi(options.quickstartBasePath)
    const document = OpenApiDocument.make({ api, servers: options.servers })
    const openApiPath = `${PUBLIC_PREFIX}/openapi.json` as const
    const openApiJson = JSON.stringify(document)
    const labelOpenApi = labelled(`GET ${openApiPath}`)
    const reference = ApiReference.make({ document, openApiPath })
    const addressOf = clientAddress(options.trustProxy, options.ipv6Subnet)
    // The runtime's Clock (a TestClock under test), read once per request, synchronously.
    const clock = yield* Effect.clock

    const admission = Admission.make({ accounts: yield* Accounts.Accounts, limiter: yield* RateLimiter.RateLimiter, clientAddress: addressOf })
    const servePublicRoute = ServeRoute.make<Routes.RouteContext>({
      routes: Routes.table(Routes.compile<Routes.RouteContext, ErrorResponse.OperationError>(api, {
        ...(yield* Operations.animals),
        ...(yield* Operations.messages)
      })),
      bodyLimit: BODY_LIMIT,
      emptyBodyIsObject: false,
      // The open document is a route too: other methods on it are 405 (after authentication, like any route).
      allowedElsewhere: (url) => (pathOf(url) === openApiPath ? "GET, HEAD" : undefined),
      operationHeaders: Operations.operationHeaders
    })
    const adminGate = AdminGate.make({ adminToken: options.adminToken, clientAddress: addressOf })
    const serveAdminRoute = ServeRoute.make<Admin.AdminContext>({
      routes: Routes.table(Routes.compile<Admin.AdminContext, ErrorResponse.OperationError>(AdminApi, yield* Admin.handlers)),
      bodyLimit: BODY_LIMIT,
      emptyBodyIsObject: true,
      allowedElsewhere: () => undefined,
      operationHeaders: {}
    })

    /** A public request: admission, then the public routes under the request's mount. */
    const servePublic = (request: AppRequest): Effect.Effect<AppResponse> => {
      const base = request.basePath ?? ""
      return admission(request, clock.unsafeCurrentTimeMillis(), (principal) =>
        servePublicRoute(request, (path) => ({ path: base + path, principal })))
    }

    /** An admin request: its gate, then the admin routes; never cached. */
    const serveAdmin = (request: AppRequest): Effect.Effect<AppResponse> => {
      const refused = adminGate(request, clock.unsafeCurrentTimeMillis())
      if (refused !== undefined) return Exit.succeed(write(refused))
      return Sync.map(serveAdminRoute(request, (path) => ({ path })), (answer) => write(answer, { "Cache-Control": "no-store" }))
    }

    /** `GET /metrics`: the admin API's gate, then the scrape; never cached. */
    const serveMetrics = (request: AppRequest, scrape: Effect.Effect<string>, contentType: string): Effect.Effect<AppResponse> => {
      const refused = adminGate(request, clock.unsafeCurrentTimeMillis())
      if (refused !== undefined) return Exit.succeed(write(refused))
      const scraped = guardedResponse(() =>
        Effect.map(scrape, (body): AppResponse => ({ status: 200, headers: { "Content-Type": contentType }, body }))
      )
      return Effect.map(scraped, (response) => {
        response.headers["Cache-Control"] = "no-store"
        return labelMetrics(response)
      })
    }

    // Readiness ports come with the stores' adapters when they have them (read here, absent: up).
    const health = yield* Health.make
    const metrics = options.metrics

    /** The answer to any request: the paths outside the API first, then the admin API, then the public one. */
    const handle = (request: AppRequest): Effect.Effect<AppResponse> => {
      const path = pathOf(request.url)
      if (path === Health.HEALTH_PATH || path === Health.READY_PATH) return health.answer(request.method, path)
      if (metrics !== undefined && path === "/metrics" && isRead(request.method)) {
        return serveMetrics(request, metrics.scrape, metrics.contentType)
      }
      if (isRead(request.method)) {
        if (path === openApiPath) return Exit.succeed(labelOpenApi(write(answer(200, openApiJson))))
        if (path === "/docs") return Effect.map(reference.answer(request.url), labelDocs)
        if (path === "/favicon.ico") return Exit.succeed(noFavicon())
      }
      return path === "/admin" || path.startsWith("/admin/") ? serveAdmin(request) : servePublic(request)
    }

    const paths = new Set([Health.HEALTH_PATH, Health.READY_PATH, "/docs", `${PUBLIC_PREFIX}/`, `${options.quickstartBasePath.replace(/\/$/, "")}/`])
    if (Option.isSome(options.adminToken)) paths.add("/admin/")
    if (Option.isSome(options.adminToken) && metrics !== undefined) paths.add("/metrics")
    const observe = yield* RequestObserver.make(options.observe ?? {})
    return App.of({ handle: observe(handle), paths: [...paths], startDraining: health.startDraining })
  })
