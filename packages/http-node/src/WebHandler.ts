/**
 * The application as a fetch handler `(Request) => Promise<Response>`, for hosts built on the web
 * platform's Request and Response.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import { App } from "./App.js"
import type { AppRequest, BodyResult } from "./AppRequest.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as RequestId from "./internal/requestId.js"
import * as Body from "./internal/hosts/body.js"
import * as Chunks from "./internal/hosts/chunks.js"
import * as Mount from "./internal/hosts/mount.js"

/** What the host knows about a request besides the `Request` itself. */
export interface RequestInfo {
  /** The client's address (the socket peer), for limits on failed authentication per address. */
  readonly remoteAddress?: string | undefined
  /** The body as the host's own parser left it, when the host read the request's body first. */
  readonly body?: unknown
}

/** A fetch-style handler: a `Request` in, a `Response` out. */
export type WebHandler = (request: Request, info?: RequestInfo) => Promise<Response>

/** Where the fetch handler is mounted. */
export interface WebHandlerOptions {
  /**
   * Where the host mounted the handler, when that is not the root: `"/petstore"` serves
   * `/petstore/v1/pets`, and answers link to paths under it.
   */
  readonly basePath?: `/${string}` | undefined
}

const readBody = (request: Request, info: RequestInfo | undefined, limit: number): Effect.Effect<BodyResult> => {
  const length = request.headers.get("content-length")
  if (request.body === null) return Effect.succeed(Body.EMPTY)
  if (info?.body !== undefined) return Effect.succeed(Body.fromHost(info.body, length, limit))
  if (request.bodyUsed) return Effect.succeed(Body.CONSUMED)
  return Effect.promise(() => Body.readStream(request.body, length, limit))
}

const notMounted = (request: Request) =>
  new Response(ErrorResponse.STATIC.routeNotFound.body, {
    status: 404,
    headers: { "Content-Type": "application/json", [RequestId.HEADER]: RequestId.of(request.headers.get(RequestId.HEADER) ?? undefined) }
  })

/** Builds the handler on the current runtime, mounted under `options.basePath`. */
export const makeWith = (options: WebHandlerOptions): Effect.Effect<WebHandler, never, App> => {
  const basePath = Mount.normalizeBasePath(options.basePath)
  return Effect.gen(function*() {
    const app = yield* App
    const runPromise = Effect.runPromiseWith(yield* Effect.context<never>())
    return async (request, info) => {
      const url = Mount.routedUrl(request.url, basePath)
      if (url === undefined) return notMounted(request)
      const appRequest: AppRequest = {
        method: request.method,
        url,
        basePath,
        header: (name) => request.headers.get(name) ?? undefined,
        remoteAddress: info?.remoteAddress,
        readBody: (limit) => readBody(request, info, limit)
      }
      const result = await runPromise(app.handle(appRequest))
      const body = request.method === "HEAD"
        ? null
        : result.bytes === undefined
        ? result.body ?? null
        : Chunks.webStream(result.bytes)
      return new Response(body, { status: result.status, headers: result.headers })
    }
  })
}

/** Builds the handler on the current runtime. */
export const make: Effect.Effect<WebHandler, never, App> = makeWith({})
