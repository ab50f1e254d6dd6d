/**
 * The node host: node's `IncomingMessage` handed to the application as an `AppRequest`, run in a
 * fiber of its own, and its answer written back (through node's `ServerResponse`, or to a target of
 * the caller's, Fastify's `reply`). Its stages are the top-level functions below, in the order a
 * request meets them: `serve` (the body known or read, then the application run) → `write`.
 *
 * The body is known or read before the request is handed in, so a request none of whose stages
 * waits is answered within the call; the application still decides, in its order, what the body
 * means. What the application cannot answer (a defect of the run itself) is the one 500 body.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { IncomingMessage, ServerResponse } from "node:http"
import { App } from "../../App.js"
import type { AppRequest, BodyResult } from "../../AppRequest.js"
import { type AppResponse, JSON_CONTENT_TYPE } from "../../AppResponse.js"
import * as ErrorResponse from "../../ErrorResponse.js"
import { BODY_LIMIT } from "../limits.js"
import * as RequestId from "../requestId.js"
import * as Body from "./body.js"
import { writeChunked } from "./chunks.js"
import * as NodeInternals from "./nodeInternals.js"

/**
 * Node's request as frameworks hand it on: Express sets `originalUrl`, body parsers set `body`,
 * request-id middleware (pino-http, express-request-id) sets `id`.
 */
export type HostedRequest = IncomingMessage & { readonly originalUrl?: string; readonly body?: unknown; readonly id?: unknown }

/** Where an answer goes: `answer(target, response)`, so that no closure is made per request. */
export type Answerer<T> = (target: T, response: AppResponse) => void

/** The application on the current runtime, and the writer its node answers share. */
export interface NodeHost {
  readonly app: App["Service"]
  /** Runs an effect in a fiber of its own, with the services the application was built with. */
  readonly fork: (effect: Effect.Effect<AppResponse>) => { readonly addObserver: (f: (exit: Exit.Exit<AppResponse>) => void) => unknown }
  /** Writes an answer through node's response, batched with the others of this turn of the event loop. */
  readonly write: Answerer<ServerResponse>
}

/** Builds the host on the current runtime (its services, clock and logger serve every request). */
export const make: Effect.Effect<NodeHost, never, App> = Effect.gen(function*() {
  const app = yield* App
  const fork = Effect.runForkWith(yield* Effect.context<never>())
  return { app, fork, write: batchedWriter() }
})

/**
 * Serves `request`, routed on `url`, answering through `answer(target, …)`. Its body is `body` when
 * the caller already knows it (a framework's parser refused it), otherwise as `knownBody` finds it,
 * otherwise read from the stream first; then the application runs on it in a fiber of its own, and
 * its answer is handed on when the fiber ends.
 */
export const serve = <T>(
  host: NodeHost,
  request: HostedRequest,
  url: string,
  basePath: string,
  target: T,
  answer: Answerer<T>,
  body: BodyResult | undefined = knownBody(request, BODY_LIMIT),
  hostRequestId?: string | undefined
): void => {
  if (body === undefined) {
    return collectBody(request, BODY_LIMIT, (read) => serve(host, request, url, basePath, target, answer, read, hostRequestId))
  }
  // Its answer (413) is coming though the request is not complete: the connection management must know.
  if (!request.complete) NodeInternals.markHandedInIncomplete(request)
  host.fork(host.app.handle(toAppRequest(request, url, basePath, body, hostRequestId)))
    .addObserver((exit) => answer(target, Exit.isSuccess(exit) ? exit.value : internalError()))
}

/** The body of `request`, up to `limit` bytes, given to `done` (at once when nothing is left to read). */
export const readBody = (request: HostedRequest, limit: number, done: (result: BodyResult) => void): void => {
  const known = knownBody(request, limit)
  if (known !== undefined) return done(known)
  collectBody(request, limit, done)
}

/** The answer to a request outside the handler's mount path. */
export const notMounted = (request: IncomingMessage, response: ServerResponse): void =>
  write(response, {
    status: 404,
    headers: { "Content-Type": JSON_CONTENT_TYPE, [RequestId.HEADER]: RequestId.ofNode(request.headers) },
    body: ErrorResponse.STATIC.routeNotFound.body
  })

/** Writes an Error answer through node's response (with the request's id, as the application's) and closes the connection. */
export const refuse = (request: IncomingMessage, response: ServerResponse, { body, status }: ErrorResponse.ErrorResult): void => {
  response.writeHead(status, {
    "Content-Type": JSON_CONTENT_TYPE,
    "Content-Length": Buffer.byteLength(body),
    Connection: "close",
    [RequestId.HEADER]: RequestId.ofNode(request.headers)
  })
  response.end(body)
}

/** Whether the request says a body follows (a length above 0, or a transfer coding). */
const declaresBody = (request: IncomingMessage): boolean => {
  const length = request.headers["content-length"]
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined
}

/**
 * The body of `request` when it is known without reading the stream: none when none is declared;
 * too large when its declared length says so; what a host's parser left in `req.body`; `Consumed`
 * when the stream was read by someone else and nothing was left. Otherwise `undefined`: the
 * stream is read.
 */
const knownBody = (request: HostedRequest, limit: number): BodyResult | undefined => {
  if (!declaresBody(request)) return Body.EMPTY
  if (request.body !== undefined) return Body.fromHost(request.body, request.headers["content-length"], limit)
  if (Body.declaredTooLarge(request.headers["content-length"], limit)) return Body.TOO_LARGE
  if (request.readableEnded || request.readableDidRead) return Body.CONSUMED
  return undefined
}

/**
 * Reads at most `limit` bytes; a larger body is not read further. A request whose body never
 * arrived whole (the client went away, or the request timed out) is dropped: `done` is not
 * called, so a cut-off body is never taken for a complete one.
 */
const collectBody = (request: IncomingMessage, limit: number, done: (result: BodyResult) => void): void => {
  const chunks: Array<Buffer> = []
  let size = 0
  let finished = false
  const finish = (result: BodyResult | undefined) => {
    if (finished) return
    finished = true
    request.off("data", onData).off("end", onEnd).off("error", onCut).off("aborted", onCut)
    if (result !== undefined) done(result)
  }
  const onData = (chunk: Buffer) => {
    size += chunk.length
    // Stop taking the body: what follows it is not read before the 413 is written (and then dropped
    // with the connection), so no later request of the connection starts ahead of that answer.
    if (size > limit) {
      request.pause()
      return finish(Body.TOO_LARGE)
    }
    chunks.push(chunk)
  }
  const onEnd = () => finish(request.complete ? { _tag: "Body", bytes: joined(chunks) } : undefined)
  const onCut = () => finish(undefined)
  request.on("data", onData).on("end", onEnd).on("error", onCut).on("aborted", onCut)
}

const joined = (chunks: ReadonlyArray<Buffer>): Buffer => (chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks))

// The body is known before the request is handed in: a succeeded effect (one shared for the empty body).
const EMPTY_BODY: Effect.Effect<BodyResult> = Effect.succeed(Body.EMPTY)

/** The host's id of the request, when it set one (a string or a number). */
const hostIdOf = (request: HostedRequest): string | undefined => {
  const id = request.id
  return typeof id === "string" ? id : typeof id === "number" ? String(id) : undefined
}

/** The request as the application sees it, routed on `url`, with its body already known. */
const toAppRequest = (
  request: HostedRequest,
  url: string,
  basePath: string,
  body: BodyResult,
  hostRequestId: string | undefined
): AppRequest => {
  const read = body === Body.EMPTY ? EMPTY_BODY : Effect.succeed(body)
  return {
    method: request.method ?? "GET",
    url,
    basePath,
    hostRequestId: hostRequestId ?? hostIdOf(request),
    header: (name) => {
      const value = request.headers[name]
      return Array.isArray(value) ? value.join(", ") : value
    },
    remoteAddress: request.socket.remoteAddress,
    readBody: () => read
  }
}

const internalError = (): AppResponse => ({
  status: 500,
  headers: { "Content-Type": JSON_CONTENT_TYPE },
  body: ErrorResponse.STATIC.internal.body
})

/** Writes `result` through node's response, at once. */
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
 * Answers finished during one turn of the event loop are written together at its end: the sockets'
 * writes then come in one burst instead of interleaving with request parsing, which lowers CPU per
 * request under load (docs/performance.md). A lone request waits at most until the end of the turn.
 */
const batchedWriter = (): Answerer<ServerResponse> => {
  let queue: Array<ServerResponse | AppResponse> = []
  let scheduled = false
  const flush = () => {
    const batch = queue
    queue = []
    scheduled = false
    for (let i = 0; i < batch.length; i += 2) write(batch[i] as ServerResponse, batch[i + 1] as AppResponse)
  }
  return (response, result) => {
    queue.push(response, result)
    if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
}
