/**
 * The application as Express 5 middleware (`@petstore/http-node/express`): mounted with
 * `app.use(petstore)` after the host's own body parsers, or under a path.
 *
 * It routes on `req.originalUrl` (so a mount path such as `app.use("/v1", petstore)` is kept),
 * answers only the pet store's paths and hands every other request on (`next()`), takes the body
 * `express.json()` already parsed, and answers a body that parser refused (malformed JSON, too
 * large) itself, in the interface's order (a request without a key is still 401).
 *
 * Express itself is not imported: the types below are the parts of it the middleware uses.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { App, pathsOf } from "./App.js"
import type { BodyResult } from "./AppRequest.js"
import * as Body from "./internal/hosts/body.js"
import { BODY_LIMIT } from "./internal/limits.js"
import * as Mount from "./internal/hosts/mount.js"
import * as NodeHost from "./internal/hosts/nodeHost.js"

/** Express's request, as far as the middleware reads it. */
export type Request = IncomingMessage & { readonly originalUrl?: string; readonly body?: unknown }
/** Express's `next`. */
export type Next = (error?: unknown) => void

/** An Express request handler. */
export type RequestHandler = (request: Request, response: ServerResponse, next: Next) => void
/** Express tells error middleware by its four parameters. */
export type ErrorHandler = (error: unknown, request: Request, response: ServerResponse, next: Next) => void

/** What `app.use` takes: the request middleware and the one for bodies the host's parser refused. */
export type Middleware = [RequestHandler, ErrorHandler]

/** Where the middleware is mounted, when that is not the root. */
export interface Options {
  /**
   * The part of the URL before the pet store's own paths, when there is one: with
   * `app.use("/petstore", petstore)`, `"/petstore"` serves `/petstore/v1/pets`. A mount path
   * that is part of the pet store's paths (`app.use("/v1", petstore)`) needs none.
   */
  readonly basePath?: `/${string}` | undefined
}

/**
 * What a body parser's error tells about the body (body-parser's `type`): the text of a body it
 * could not parse, or that it was too large. Other errors are not about the body.
 */
const refusedBody = (error: unknown, request: Request, limit: number): BodyResult | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const { body, type } = error as { readonly type?: unknown; readonly body?: unknown }
  if (type === "entity.parse.failed" && typeof body === "string") {
    return Body.fromHost(body, request.headers["content-length"], limit)
  }
  if (type === "entity.too.large") return Body.TOO_LARGE
  return undefined
}

/** Builds the middleware on the current runtime. */
export const make = (options: Options = {}): Effect.Effect<Middleware, never, App> => {
  const basePath = Mount.normalizeBasePath(options.basePath)
  return Effect.gen(function*() {
    const paths = pathsOf(yield* App)
    const host = yield* NodeHost.make
    const route = (request: Request): string | undefined => {
      const url = Mount.routedUrl(request.originalUrl ?? request.url ?? "/", basePath)
      return url !== undefined && Mount.owns(paths, url) ? url : undefined
    }
    const handler: RequestHandler = (request, response, next) => {
      const url = route(request)
      if (url === undefined) return next()
      NodeHost.serve(host, request, url, basePath, response, host.write)
    }
    const onError: ErrorHandler = (error, request, response, next) => {
      const url = route(request)
      const body = url === undefined ? undefined : refusedBody(error, request, BODY_LIMIT)
      if (url === undefined || body === undefined) return next(error)
      NodeHost.serve(host, request, url, basePath, response, host.write, body)
    }
    return [handler, onError]
  })
}
