/**
 * Node's `IncomingMessage` as an `AppRequest`: its body read from the stream, or taken from what
 * the host left when a framework read it first, and never waited for when nobody can give it.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

import type { IncomingMessage } from "node:http"
import type { AppRequest, BodyResult } from "../../AppRequest.js"
import type { AppResponse } from "../../AppResponse.js"
import * as Body from "./body.js"
import * as NodeInternals from "./nodeInternals.js"
import { BODY_LIMIT } from "../limits.js"
import type { Runner } from "./runner.js"

/**
 * Node's request as frameworks hand it on: Express sets `originalUrl`, body parsers set `body`,
 * request-id middleware (pino-http, express-request-id) sets `id`.
 */
export type HostedRequest = IncomingMessage & { readonly originalUrl?: string; readonly body?: unknown; readonly id?: unknown }

/** The host's id of the request, when it set one (a string or a number). */
const hostIdOf = (request: HostedRequest): string | undefined => {
  const id = request.id
  return typeof id === "string" ? id : typeof id === "number" ? String(id) : undefined
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
  const onEnd = () =>
    finish(request.complete ? { _tag: "Body", bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) } : undefined)
  const onCut = () => finish(undefined)
  request.on("data", onData).on("end", onEnd).on("error", onCut).on("aborted", onCut)
}

/** The request as the application sees it, routed on `url`, with its body already known. */
const toAppRequest = (
  request: HostedRequest,
  url: string,
  basePath: string,
  body: Effect.Effect<BodyResult>,
  hostRequestId: string | undefined
): AppRequest => ({
  method: request.method ?? "GET",
  url,
  basePath,
  hostRequestId: hostRequestId ?? hostIdOf(request),
  header: (name) => {
    const value = request.headers[name]
    return Array.isArray(value) ? value.join(", ") : value
  },
  remoteAddress: request.socket.remoteAddress,
  readBody: () => body
})

/** The body of `request`, up to `limit` bytes, given to `done` (at once when nothing is left to read). */
export const readBody = (request: HostedRequest, limit: number, done: (result: BodyResult) => void): void => {
  const known = knownBody(request, limit)
  if (known !== undefined) return done(known)
  collectBody(request, limit, done)
}

// The body is known before the request is handed in: a succeeded effect (one shared for the empty body).
const EMPTY_BODY: Effect.Effect<BodyResult> = Effect.succeed(Body.EMPTY)
const bodyEffect = (body: BodyResult): Effect.Effect<BodyResult> => body === Body.EMPTY ? EMPTY_BODY : Effect.succeed(body)

/**
 * Hands `request`, routed on `url`, to the application through `run`, and its answer to
 * `answer(target, …)`. The body (up to the application's limit) is known or read before the
 * request is handed in, so the request's steps can answer at once; the application still decides,
 * in its order, what it means. `body` is given when the caller already knows it (a framework's
 * parser refused it).
 */
const handIn = <T>(
  run: Runner,
  request: HostedRequest,
  url: string,
  basePath: string,
  target: T,
  answer: (target: T, response: AppResponse) => void,
  body: BodyResult,
  hostRequestId: string | undefined
) => {
  // Its answer (413) is coming though the request is not complete: the connection management must know.
  if (!request.complete) NodeInternals.markHandedInIncomplete(request)
  run(toAppRequest(request, url, basePath, bodyEffect(body), hostRequestId), target, answer)
}

export const serve = <T>(
  run: Runner,
  request: HostedRequest,
  url: string,
  basePath: string,
  target: T,
  answer: (target: T, response: AppResponse) => void,
  body: BodyResult | undefined = knownBody(request, BODY_LIMIT),
  hostRequestId?: string | undefined
): void => {
  if (body !== undefined) return handIn(run, request, url, basePath, target, answer, body, hostRequestId)
  collectBody(request, BODY_LIMIT, (read) => handIn(run, request, url, basePath, target, answer, read, hostRequestId))
}
