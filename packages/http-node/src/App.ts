/**
 * The application: one request in, one response out, in the order the interface fixes. A request
 * of the API goes through named stages, listed in order below (`PUBLIC_STAGES`, `ADMIN_STAGES`),
 * each in its own module under `internal/stages`:
 *
 *   authenticate → admit (401, 429) → route (404, 405) → read body (413, 400) → decode (400) → operate
 *
 * Each stage answers "go on" or "answer with this", and reads only what the stages before it set
 * (the exchange is typed by stage: a list in the wrong order does not compile). The first answer
 * is made the response by `write` (each stage's headers merged once), after the stages, not one of
 * them; whatever escapes the stages is answered once (`recover`: 503, 500). The admin API takes the
 * same route stages behind its own gate; health, the document and its page are answered before any
 * stage. Everything that does not depend on the request (routes,
 * decoders, encoders, static answers) is built once here, when the layer is built; the OpenAPI
 * document and its page once, at their first request.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import { Accounts, type Idempotency, type MessageQueue, type Pets, RateLimiter, Readiness } from "@petstore/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { ADMIN_OPERATIONS, AdminApi } from "./AdminApi.js"
import { Api, makeApi, OPERATIONS, PUBLIC_PREFIX } from "./Api.js"
import type { AppRequest } from "./AppRequest.js"
import { type AppResponse, JSON_CONTENT_TYPE } from "./AppResponse.js"
import type * as ErrorResponse from "./ErrorResponse.js"
import * as Console from "./internal/console/console.js"
import * as ApiReference from "./internal/openapi/apiReference.js"
import { clientAddress, clientHost } from "./internal/credentials.js"
import * as Health from "./internal/health.js"
import { HealthProbe } from "./internal/operations/admin/adminHealth.js"
import * as Limits from "./internal/limits.js"
import * as UsageCount from "./internal/usageCount.js"
import type { AdminContext } from "./internal/operations/operation.js"
import * as Operations from "./internal/operations/operations.js"
import * as Routes from "./internal/routes.js"
import * as AdminGateStage from "./internal/stages/adminGate.js"
import * as Admit from "./internal/stages/admit.js"
import * as Authenticate from "./internal/stages/authenticate.js"
import { decode } from "./internal/stages/decode.js"
import * as Exchange from "./internal/stages/exchange.js"
import type { Answer } from "./internal/stages/answer.js"
import * as Operate from "./internal/stages/operate.js"
import * as Pipeline from "./internal/stages/pipeline.js"
import * as ReadBody from "./internal/stages/readBody.js"
import * as Recover from "./internal/stages/recover.js"
import { pathOf } from "./internal/urlPath.js"
import * as Route from "./internal/stages/route.js"
import * as Scrape from "./internal/stages/scrape.js"
import { write } from "./internal/stages/write.js"
import * as OpenApiDocument from "./OpenApiDocument.js"
import * as RequestObserver from "./RequestObserver.js"

/** The paths of an application with the message example at `/v1` and the admin API enabled. */
export const DEFAULT_PATHS: ReadonlyArray<string> = ["/docs", "/v1/", "/admin/"]

/** The paths `app` answers (see `App.paths`). */
export const pathsOf = (app: App["Service"]): ReadonlyArray<string> => app.paths ?? DEFAULT_PATHS

/** The methods of an application serving the pet store API and the admin API, from their definitions. */
export const DEFAULT_METHODS: ReadonlyArray<string> = Routes.methods([Api, AdminApi])

/** The methods `app`'s routes answer (see `App.methods`). */
export const methodsOf = (app: App["Service"]): ReadonlyArray<string> => app.methods ?? DEFAULT_METHODS

/** Largest accepted request body, in bytes. */
export const BODY_LIMIT = Limits.BODY_LIMIT

/** What the application needs beside the core's services: base path, admin token, proxies, servers. */
export interface AppOptions {
  readonly quickstartBasePath: `/${string}`
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  /** Proxies in front of the server that append to `X-Forwarded-For` (0: use the socket peer). */
  readonly trustProxy: number
  /** The prefix length IPv6 client addresses are grouped by for failed-authentication limits (default 64). */
  readonly ipv6Subnet?: number | undefined
  /**
   * Requests for the API reference's script (`/docs?asset=…`, needing no key) per minute from one
   * client address, then 429 (default 120).
   */
  readonly assetsPerMinute?: number | undefined
  readonly servers: ReadonlyArray<{ readonly url: string; readonly description: string }>
  /** The access log and tracing (both off by default); every response carries `X-Request-Id`. */
  readonly observe?: RequestObserver.ObserveOptions | undefined
  /**
   * The operator console at `/console` (docs/console.md): its build's directory and how long its
   * sessions last. Absent, or without an admin token: every `/console` path is an unknown path (404).
   */
  readonly console?: {
    /** The directory of the console's build: `manifest.json` and the files it names (read at start-up). */
    readonly directory: string
    /** How long a session lasts, in hours (default 12). */
    readonly sessionHours?: number | undefined
  } | undefined
  /**
   * Metrics served at `GET /metrics` to the admin token (with the admin API's failed-token limits);
   * absent, or no admin token: `/metrics` is an unknown path.
   */
  readonly metrics?: {
    readonly scrape: Effect.Effect<string>
    readonly contentType: string
    /** Told each answer and how long it took, in seconds (request counts and latency). */
    readonly record?: ((response: AppResponse, seconds: number) => void) | undefined
  } | undefined
}

/** The application: one request in, one answer out, whatever the host. @category services */
export class App extends Context.Service<
  App,
  {
    /**
     * The answer to `request`, as an effect that does nothing until it runs (and all of it each time
     * it does). The servers run each request in a fiber of its own, with the services the
     * application was built with (`internal/hosts/nodeHost.ts`); the Effect host runs it in the host's fiber.
     */
    readonly handle: (request: AppRequest) => Effect.Effect<AppResponse>
    /**
     * The paths the application answers: exact paths, and prefixes ending in "/". A host that
     * mounts it next to routes of its own hands it these. Absent (an application that wraps
     * another's `handle`): `DEFAULT_PATHS`.
     */
    readonly paths?: ReadonlyArray<string> | undefined
    /** The methods its routes answer, HEAD wherever GET, in a fixed order (`Allow` of the 405 to CONNECT). Absent: `DEFAULT_METHODS`. */
    readonly methods?: ReadonlyArray<string> | undefined
    /** Makes `/readyz` answer 503 from now on: the server hosting it has begun to shut down. */
    readonly startDraining?: (() => void) | undefined
  }
>()("@petstore/http-node/App") {
  static readonly layer = (options: AppOptions): Layer.Layer<App, never, AppServices> => Layer.effect(App, make(options))
}

/** The core services the application serves. */
export type AppServices = Accounts.Accounts | RateLimiter.RateLimiter | Pets.Pets | MessageQueue.MessageQueue | Idempotency.Idempotency

const isRead = (method: string): boolean => method === "GET" || method === "HEAD"

/** Notes the route that answered on the response, for logs and metrics (every response is a new object). */
const labelDocs = (response: AppResponse): AppResponse => {
  response.route = "GET /docs"
  return response
}

/** Browsers ask every origin for `/favicon.ico`: no icon, no key needed, and not asked again for a week. */
const noFavicon = (): AppResponse => ({
  status: 204,
  headers: { "Cache-Control": "public, max-age=604800" },
  body: undefined,
  route: "GET /favicon.ico"
})

/**
 * `write` for the public API: a request refused before routing (401, 429) is written with the route
 * it asked for, for its access line. Only refusals pay for the lookup.
 */
const writeAsked = (routes: Routes.RouteTable<Routes.RouteContext, ErrorResponse.OperationError>) =>
(exchange: Exchange.Exchange, answer: Answer): AppResponse => {
  const response = write(exchange, answer)
  if (response.route === undefined && (response.status === 401 || response.status === 429)) {
    const found = routes.find(exchange.request.method, exchange.request.url)
    if (found !== undefined) response.askedRoute = found.handler.template
  }
  return response
}

/** The paths an application made with `options` answers (see `App.paths`). */
const servedPaths = (options: AppOptions): ReadonlyArray<string> => {
  const paths = new Set([Health.HEALTH_PATH, Health.READY_PATH, "/docs", `${PUBLIC_PREFIX}/`, `${options.quickstartBasePath.replace(/\/$/, "")}/`])
  if (Option.isSome(options.adminToken)) paths.add("/admin/")
  if (Option.isSome(options.adminToken) && options.console !== undefined) {
    paths.add("/console")
    paths.add("/console/")
  }
  if (Option.isSome(options.adminToken) && options.metrics !== undefined) paths.add("/metrics")
  return [...paths]
}

/** Builds the application from the core's services and `options`. @category constructors */
export const make = (options: AppOptions): Effect.Effect<App["Service"], never, AppServices> =>
  Effect.gen(function*() {
    const api = makeApi(options.quickstartBasePath)
    // The OpenAPI document is built at its first request (it or the reference page), then kept: most
    // processes never serve it, and building it at start would cost every start-up its time and its
    // allocation (which grows the young generation before the first request).
    let document: OpenApiDocument.OpenApiDocument | undefined
    const documentOf = () => (document ??= OpenApiDocument.make({ api, servers: options.servers }))
    const openApiPath = `${PUBLIC_PREFIX}/openapi.json` as const
    let openApiAnswer: string | undefined
    const addressOf = clientAddress(options.trustProxy, options.ipv6Subnet)
    // The runtime's Clock (a TestClock under test), read synchronously by the stages that need it.
    const clock = yield* Clock.Clock
    const reference = ApiReference.make({ document: documentOf, openApiPath, clientAddress: addressOf, assetsPerMinute: options.assetsPerMinute, clock })
    const consoleOptions = { console: options.console, adminToken: options.adminToken, trustProxy: options.trustProxy, clock }
    const { console: operatorConsole, ...consoleParts } = yield* Console.make({ ...consoleOptions, clientAddress: addressOf })
    const adminGate = AdminGateStage.make(consoleParts.gate, clock)

    const publicRoutes = Routes.table(Routes.compile<Routes.RouteContext, ErrorResponse.OperationError>(api, yield* Operations.handlers(OPERATIONS)))

    /** The stages of a request of the public API, in order. */
    const PUBLIC_STAGES = Pipeline.begin()
      .then(Authenticate.make(yield* Accounts.Accounts))
      .then(Admit.make({ limiter: yield* RateLimiter.RateLimiter, clientAddress: addressOf }))
      .then(Route.make({
        routes: publicRoutes,
        // The open document is a route too: other methods on it are 405 (after authentication, like any route).
        allowedElsewhere: (url) => (pathOf(url) === openApiPath ? "GET, HEAD" : undefined),
        operationHeaders: Operations.headers(OPERATIONS)
      }))
      .then(ReadBody.make({ bodyLimit: BODY_LIMIT, emptyBodyIsObject: false }))
      .then(decode)
      .then(Operate.make((exchange: Exchange.Start & Exchange.Admitted, path): Routes.RouteContext => ({
        path: exchange.basePath + path,
        principal: exchange.principal,
        decision: exchange.decision,
        header: exchange.request.header
      })))

    // Readiness ports come with the stores' adapters when they have them (read here, absent: up);
    // `/readyz`, `GET /admin/v1/health` and the requests refused for an outage share what is known of it.
    const readiness = yield* Readiness.watch()
    const health = Health.make(readiness.report)
    const adminHandlers = yield* Effect.provideService(Operations.handlers(ADMIN_OPERATIONS), HealthProbe, {
      report: readiness.report,
      draining: health.draining
    })

    /** The stages of a request of the admin API, in order. */
    const ADMIN_STAGES = Pipeline.begin()
      .then(adminGate)
      .then(Route.make({
        routes: Routes.table(Routes.compile<AdminContext, ErrorResponse.OperationError>(AdminApi, adminHandlers)),
        allowedElsewhere: () => undefined,
        operationHeaders: {}
      }))
      .then(ReadBody.make({ bodyLimit: BODY_LIMIT, emptyBodyIsObject: true }))
      .then(decode)
      .then(Operate.make((exchange: Exchange.Start, path): AdminContext => ({ path, basePath: exchange.basePath })))

    /** The stages of `GET /metrics`, in order (when metrics are on). */
    const metrics = options.metrics
    const METRICS_STAGES = metrics === undefined ? Pipeline.begin() : Pipeline.begin().then(adminGate).then(Scrape.make(metrics))

    const recover = Recover.make(readiness.refused)

    /** Each list's run, made once. */
    const PUBLIC = Pipeline.runner(PUBLIC_STAGES)
    const ADMIN = Pipeline.runner(ADMIN_STAGES)
    const METRICS = Pipeline.runner(METRICS_STAGES)

    /**
     * The response of a list of stages to `request`: run until one answers, what escapes answered,
     * then written by `finish` (made once per list).
     */
    const serve = (stages: ReturnType<typeof Pipeline.runner>, request: AppRequest, finish: typeof write): Effect.Effect<AppResponse> => {
      const exchange = Exchange.make(request)
      return Effect.map(recover(stages, exchange), (answer) => finish(exchange, answer))
    }

    const writePublic = writeAsked(publicRoutes)

    const openApi = (): AppResponse => ({
      status: 200,
      headers: { "Content-Type": JSON_CONTENT_TYPE },
      body: openApiAnswer ??= JSON.stringify(documentOf()),
      route: `GET ${openApiPath}`
    })

    /** The answer to any request: the paths outside the API first, then the admin API, then the public one. */
    const dispatch = (request: AppRequest): Effect.Effect<AppResponse> => {
      const path = pathOf(request.url)
      if (path === Health.HEALTH_PATH || path === Health.READY_PATH) return health.answer(request.method, path)
      if (metrics !== undefined && path === "/metrics" && isRead(request.method)) return serve(METRICS, request, write)
      if (Console.isConsolePath(path)) return Console.answer(operatorConsole, request, path, (session) => serve(session, request, write))
      if (isRead(request.method)) {
        if (path === openApiPath) return Effect.succeed(openApi())
        if (path === "/docs") return Effect.map(reference.answer(request), labelDocs)
        if (path === "/favicon.ico") return Effect.succeed(noFavicon())
      }
      return path === "/admin" || path.startsWith("/admin/") ? serve(ADMIN, request, write) : serve(PUBLIC, request, writePublic)
    }

    const observe = yield* RequestObserver.make({
      ...options.observe,
      record: metrics?.record,
      count: yield* UsageCount.make,
      clientAddress: clientHost(options.trustProxy)
    })
    const observed = (request: AppRequest) => observe(request, dispatch)
    return App.of({
      // Lazy: nothing of the request is done before its effect runs.
      handle: (request) => Effect.suspend(() => (observed)(request)),
      paths: servedPaths(options),
      methods: Routes.methods([api, AdminApi]),
      startDraining: health.startDraining
    })
  })
