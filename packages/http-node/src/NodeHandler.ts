/**
 * The application as a node:http request listener, for `http.createServer` or mounting inside
 * another node server (Express, Fastify's raw request ...).
 *
 * @since 1.0.0
 */
import { Effect } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { App } from "./App.js"
import type { BodyResult } from "./AppRequest.js"
import type { AppResponse } from "./AppResponse.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Mount from "./internal/mount.js"
import * as NodeRequest from "./internal/nodeRequest.js"
import * as Runner from "./internal/runner.js"

export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void

export interface NodeHandlerOptions {
  /**
   * Where the host mounted the handler, when that is not the root: `"/petstore"` serves
   * `/petstore/v1/pets`. It is removed from each request's path (Express's `req.originalUrl`
   * when set, otherwise `req.url`) before routing, and put before the paths answers link to
   * (`Location`, `Link`).
   */
  readonly basePath?: `/${string}` | undefined
}

const write = (response: ServerResponse, result: AppResponse): void => {
  if (response.headersSent) return
  if (result.body === undefined) {
    response.writeHead(result.status, result.headers)
    response.end()
    return
  }
  // A string body goes out with the header block in one write (node joins them), encoded once.
  result.headers["Content-Length"] = String(Buffer.byteLength(result.body))
  response.writeHead(result.status, result.headers)
  response.end(result.body)
}

/**
 * Responses finished during one turn of the event loop are written together at its end: the
 * sockets' writes then come in one burst instead of interleaving with request parsing, which
 * measurably lowers CPU per request under load (see docs/performance.md). A lone request waits at
 * most until the end of the current turn.
 */
const makeWriter = () => {
  let queue: Array<ServerResponse | AppResponse> = []
  let scheduled = false
  const flush = () => {
    const batch = queue
    queue = []
    scheduled = false
    for (let i = 0; i < batch.length; i += 2) write(batch[i] as ServerResponse, batch[i + 1] as AppResponse)
  }
  return (response: ServerResponse, result: AppResponse) => {
    queue.push(response, result)
    if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
}

const notMounted = (): AppResponse => ({
  status: 404,
  headers: { "Content-Type": "application/json" },
  body: ErrorResponse.STATIC.routeNotFound.body
})

/**
 * Serves one request routed on `url`; its body is `body` when the caller already knows it (a
 * framework's parser refused it), otherwise as `NodeRequest` finds it.
 *
 * @internal
 */
export type Serve = (
  request: NodeRequest.HostedRequest,
  response: ServerResponse,
  url: string,
  basePath: string,
  body?: BodyResult
) => void

/** @internal */
export const makeServe: Effect.Effect<Serve, never, App> = Effect.map(Runner.make, (run) => {
  const enqueue = makeWriter()
  return (request, response, url, basePath, body) => NodeRequest.serve(run, request, url, basePath, response, enqueue, body)
})

/** Builds the listener on the current runtime, with the handler mounted under `options.basePath`. */
export const makeWith = (options: NodeHandlerOptions): Effect.Effect<NodeHandler, never, App> => {
  const basePath = Mount.normalizeBasePath(options.basePath)
  return Effect.map(makeServe, (serve): NodeHandler => (request, response) => {
    const hosted = request as NodeRequest.HostedRequest
    const url = Mount.routedUrl(hosted.originalUrl ?? request.url ?? "/", basePath)
    if (url === undefined) return write(response, notMounted())
    serve(hosted, response, url, basePath)
  })
}

/** Builds the listener on the current runtime (its services, clock and logger serve every request). */
export const make: Effect.Effect<NodeHandler, never, App> = makeWith({})
