/**
 * The one place that starts the HTTP server: node:http with the application's listener, and a
 * graceful close (stop accepting, let in-flight requests finish within a bound).
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { App, methodsOf } from "./App.js"
import * as Connections from "./Connections.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Mount from "./internal/hosts/mount.js"
import * as NodeHost from "./internal/hosts/nodeHost.js"

/** Where the server listens, and its timeouts. */
export interface ListenOptions {
  readonly port: number
  readonly host: string
  /**
   * How long the server keeps accepting and serving once shutdown begins, with `/readyz` answering
   * 503, so load balancers stop sending before it stops accepting (default 0: it stops at once).
   */
  readonly drainDelay?: Duration.Input | undefined
  /** How long in-flight requests may take to finish on shutdown before their connections are cut. */
  readonly shutdownTimeout?: Duration.Input | undefined
  /** Longest wait for a request's headers (default 10 s); then 408 `request_timeout`. */
  readonly headersTimeout?: Duration.Input | undefined
  /** Longest wait for a whole request, headers and body (default 30 s); then 408 `request_timeout`. */
  readonly requestTimeout?: Duration.Input | undefined
  /**
   * Log the shutdown's two moments at level Info: `draining: …` when it begins, `stopped: …` when the
   * last connection is closed (default false; the standalone server turns it on).
   */
  readonly logShutdown?: boolean | undefined
  /** Bounds on connections (the cap, pipelining, unread answers, lingering); see `Connections.defaults`. */
  readonly connections?: Partial<Connections.ConnectionLimits> | undefined
}

/** How long a client has to send a request's headers. */
export const DEFAULT_HEADERS_TIMEOUT = Duration.seconds(10)
/** How long a client has to send a whole request. */
export const DEFAULT_REQUEST_TIMEOUT = Duration.seconds(30)

/** Where the server listens (the real port when 0 was asked). */
export class ServerAddress extends Context.Service<
  ServerAddress,
  { readonly host: string; readonly port: number; readonly url: string }
>()("@petstore/http-node/ServerAddress") {}

/** The server could not listen; the message says why in words. */
export class ListenError extends Data.TaggedError("ListenError")<{ readonly message: string }> {}

const explain = (error: NodeJS.ErrnoException, options: ListenOptions): string =>
  error.code === "EADDRINUSE"
    ? `port ${options.port} on ${options.host} is already in use; set PORT to a free port`
    : error.code === "EACCES"
    ? `no permission to listen on port ${options.port}; use a port above 1023`
    : error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND"
    ? `HOST ${options.host} is not an address of this machine`
    : `cannot listen on ${options.host}:${options.port}: ${error.message}`

const close = (server: Http.Server, connections: Connections.Installed, timeout: Duration.Input) =>
  Effect.callback<void>((resume) => {
    // Keep-alive connections with no request in flight would hold close() open; in-flight ones finish.
    const timer = setTimeout(() => connections.destroyAll(), Duration.toMillis(timeout))
    server.close(() => {
      clearTimeout(timer)
      resume(Effect.void)
    })
    server.closeIdleConnections()
  })

const CONTINUE = /^\s*100-continue\s*$/i

/** Serves the application for the life of the layer. */
export const layer = (options: ListenOptions): Layer.Layer<ServerAddress, ListenError, App> =>
  Layer.effect(
    ServerAddress,
    Effect.gen(function*() {
      const app = yield* App
      const nodeHost = yield* NodeHost.make
      const headersTimeout = Duration.toMillis(options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT)
      const requestTimeout = Duration.toMillis(options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
      const server = Http.createServer({
        keepAliveTimeout: 5_000,
        headersTimeout,
        requestTimeout,
        // Node looks for timed-out requests every 30 s by default, which stretched the 10 s bound
        // on headers to 23–26 s: it looks every quarter of the shorter bound (at most once a second).
        connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(headersTimeout / 4))),
        requireHostHeader: false
      })
      const connections = Connections.install(
        server,
        (request, response) => {
          if (request.httpVersion === "1.1" && request.headers.host === undefined) {
            return NodeHost.refuse(request, response, ErrorResponse.STATIC.missingHost)
          }
          const expect = request.headers.expect
          if (expect !== undefined) {
            // Only exactly `100-continue` (node would also take `100-continue-ish`); anything else is 417.
            if (!CONTINUE.test(expect)) return NodeHost.refuse(request, response, ErrorResponse.STATIC.expectationFailed)
            response.writeContinue()
          }
          // At the root every target is the application's (the asterisk form too), as it was sent.
          NodeHost.serve(nodeHost, request, Mount.routedUrl(request.url ?? "/", "") ?? "/", "", response, nodeHost.write)
        },
        { ...Connections.defaults(), ...options.connections },
        methodsOf(app)
      )
      yield* Effect.acquireRelease(
        Effect.callback<void, ListenError>((resume) => {
          const onError = (error: NodeJS.ErrnoException) => resume(Effect.fail(new ListenError({ message: explain(error, options) })))
          server.once("error", onError)
          server.listen(options.port, options.host, () => {
            server.off("error", onError)
            resume(Effect.void)
          })
        }),
        () => {
          const drainMillis = options.drainDelay === undefined ? 0 : Duration.toMillis(options.drainDelay)
          const shutdownTimeout = options.shutdownTimeout ?? "10 seconds"
          const say = (effect: Effect.Effect<void>) => (options.logShutdown === true ? effect : Effect.void)
          return Effect.sync(() => {
            app.startDraining?.()
            // Every answer from now on ends its connection (node writes `Connection: close`), so a
            // client or a balancer on keep-alive opens its next connection elsewhere while this server
            // still answers; a request pipelined after it is not carried out (the connection's rule).
            // First among the listeners, so the connection's own bookkeeping sees it.
            const closing = (_request: Http.IncomingMessage, response: Http.ServerResponse) => {
              response.shouldKeepAlive = false
            }
            for (const event of ["request", "checkContinue", "checkExpectation"] as const) {
              if (event === "request" || server.listenerCount(event) > 0) server.prependListener(event, closing)
            }
          }).pipe(
            Effect.andThen(say(Effect.log(
              `draining: /readyz answers 503; ${drainMillis > 0 ? `still accepting for ${drainMillis} ms, then ` : ""}no new connections, and requests in flight have ${Duration.format(Duration.fromInputUnsafe(shutdownTimeout))} to finish`
            ).pipe(Effect.annotateLogs("drainDelayMs", drainMillis)))),
            Effect.andThen(drainMillis > 0 ? Effect.sleep(drainMillis) : Effect.void),
            Effect.andThen(close(server, connections, shutdownTimeout)),
            Effect.andThen(say(Effect.log("stopped: every connection is closed")))
          )
        }
      )
      const address = server.address() as AddressInfo
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address
      return { host: address.address, port: address.port, url: `http://${host}:${address.port}` }
    })
  )
