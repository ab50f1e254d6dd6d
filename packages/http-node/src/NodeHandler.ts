/**
 * The application as a node:http request listener, for `http.createServer` or mounting inside
 * another node server (express, fastify's raw request ...).
 *
 * @since 1.0.0
 */
import { Effect, Exit, Runtime, RuntimeFlags } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { App, BODY_LIMIT } from "./App.js"
import type { AppRequest, BodyResult } from "./AppRequest.js"
import type { AppResponse } from "./AppResponse.js"

export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void

const TOO_LARGE: BodyResult = { _tag: "TooLarge" }
const NO_BODY: Exit.Exit<BodyResult> = Exit.succeed({ _tag: "Body", bytes: new Uint8Array(0) })

/** Whether the request says a body follows (a length above 0, or a transfer coding). */
const declaresBody = (request: IncomingMessage): boolean => {
  const length = request.headers["content-length"]
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined
}

/**
 * Reads at most `limit` bytes; a declared or actual larger body is not read further. A request
 * whose body never arrived whole (the client went away, or the request timed out) is dropped:
 * `done` is not called, so a cut-off body is never taken for a complete one.
 */
const collectBody = (request: IncomingMessage, limit: number, done: (result: BodyResult) => void): void => {
  const declared = request.headers["content-length"]
  if (declared !== undefined && Number(declared) > limit) return done(TOO_LARGE)
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
    if (size > limit) return finish(TOO_LARGE)
    chunks.push(chunk)
  }
  const onEnd = () =>
    finish(request.complete ? { _tag: "Body", bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) } : undefined)
  const onCut = () => finish(undefined)
  request.on("data", onData).on("end", onEnd).on("error", onCut).on("aborted", onCut)
}

const INTERNAL_ERROR = JSON.stringify({ code: "internal_error", message: "An unexpected error occurred.", status: 500 })

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

/** Builds the listener on the current runtime (its services, clock and logger serve every request). */
export const make: Effect.Effect<NodeHandler, never, App> = Effect.gen(function*() {
  const app = yield* App
  // Fiber metrics are never read by this server; counting them costs every request.
  const runtime = Runtime.disableRuntimeFlag(yield* Effect.runtime<never>(), RuntimeFlags.RuntimeMetrics)
  const runFork = Runtime.runFork(runtime)
  const enqueue = makeWriter()
  const reply = (response: ServerResponse, exit: Exit.Exit<AppResponse>) =>
    enqueue(
      response,
      Exit.isSuccess(exit) ? exit.value : { status: 500, headers: { "Content-Type": "application/json" }, body: INTERNAL_ERROR }
    )
  const serve = (request: IncomingMessage, response: ServerResponse, body: Exit.Exit<BodyResult>) => {
    const appRequest: AppRequest = {
      method: request.method ?? "GET",
      url: request.url ?? "/",
      header: (name) => {
        const value = request.headers[name]
        return Array.isArray(value) ? value.join(", ") : value
      },
      remoteAddress: request.socket.remoteAddress,
      readBody: () => body
    }
    let answer: Effect.Effect<AppResponse>
    try {
      answer = app.handle(appRequest)
    } catch (defect) {
      answer = Effect.die(defect)
    }
    // Already answered (every step of the request answered at once): no fiber to run.
    if (Exit.isExit(answer)) return reply(response, answer as Exit.Exit<AppResponse>)
    runFork(answer).addObserver((exit) => reply(response, exit))
  }
  // The body (up to the application's limit) is read before the request is handed in, so the
  // request's steps can answer at once; the application still decides, in its order, what it means.
  return (request, response) => {
    if (!declaresBody(request)) return serve(request, response, NO_BODY)
    collectBody(request, BODY_LIMIT, (body) => serve(request, response, Exit.succeed(body)))
  }
})
