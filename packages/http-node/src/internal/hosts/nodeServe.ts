/**
 * Serving node's request and response: the application's answer written through node's
 * `ServerResponse`, for the node:http listener and the Express middleware.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { App } from "../../App.js"
import type { BodyResult } from "../../AppRequest.js"
import type { AppResponse } from "../../AppResponse.js"
import * as ErrorResponse from "../../ErrorResponse.js"
import * as RequestId from "../requestId.js"
import { writeChunked } from "./chunks.js"
import * as NodeRequest from "./nodeRequest.js"
import * as Runner from "./runner.js"

const write = (response: ServerResponse, result: AppResponse): void => {
  if (response.headersSent) return
  if (result.bytes !== undefined) {
    response.writeHead(result.status, result.headers)
    // HEAD: the header block only (node would drop the chunks anyway, after walking through them).
    if (response.req.method === "HEAD") return void response.end()
    return writeChunked(response, result.bytes)
  }
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

/** The answer to a request outside the handler's mount path. */
export const notMounted = (request: IncomingMessage, response: ServerResponse): void =>
  write(response, {
    status: 404,
    headers: { "Content-Type": "application/json", [RequestId.HEADER]: RequestId.ofNode(request.headers) },
    body: ErrorResponse.STATIC.routeNotFound.body
  })

/**
 * Serves one request routed on `url`; its body is `body` when the caller already knows it (a
 * framework's parser refused it), otherwise as `NodeRequest` finds it.
 */
export type Serve = (
  request: NodeRequest.HostedRequest,
  response: ServerResponse,
  url: string,
  basePath: string,
  body?: BodyResult
) => void

/** Builds the serving function on the current runtime; its answers are written by one writer. */
export const make: Effect.Effect<Serve, never, App> = Effect.map(Runner.make, (run) => {
  const enqueue = makeWriter()
  return (request, response, url, basePath, body) => NodeRequest.serve(run, request, url, basePath, response, enqueue, body)
})
