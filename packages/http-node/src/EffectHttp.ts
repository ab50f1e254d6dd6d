/**
 * The application for hosts built on Effect's HTTP modules: an HTTP effect to mount in the host's
 * `HttpRouter`, and the layers that add the pet store's operations to the host's own `HttpApi`
 * (so they appear in the host's OpenAPI document) while the pet store still answers them.
 *
 * Either way each request is answered by the same application as on node:http, with the client
 * address taken from the platform request's `remoteAddress`.
 *
 * @since 1.0.0
 */
import type * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import type * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { IncomingMessage } from "node:http"
import { ApiKeyAuth } from "./Api.js"
import { App, pathsOf } from "./App.js"
import type { AppRequest, BodyResult } from "./AppRequest.js"
import type { AppResponse } from "./AppResponse.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as RequestId from "./internal/requestId.js"
import * as Body from "./internal/hosts/body.js"
import * as Chunks from "./internal/hosts/chunks.js"
import * as Mount from "./internal/hosts/mount.js"
import * as NodeHost from "./internal/hosts/nodeHost.js"

/** An answer to the request in context: what a host's `HttpRouter` mounts. */
export type HttpApp = Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>

/** Where the application is mounted in the host's router. */
export interface HttpAppOptions {
  /**
   * Where the host mounted the app, when that is not the root: with
   * `HttpRouter.mountApp("/petstore", app)`, `"/petstore"` serves `/petstore/v1/pets`. The app
   * routes on the request's original URL, so a mount path that is part of the pet store's paths
   * (`HttpRouter.all("/v1/*", app)`) needs none.
   */
  readonly basePath?: `/${string}` | undefined
}

/** The body of a platform request: node's own reading when node received it, otherwise its stream. */
const readBody = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<BodyResult> => {
  const source = (request as { readonly source?: unknown }).source
  if (source instanceof IncomingMessage) {
    return Effect.callback<BodyResult>((resume) => NodeHost.readBody(source, limit, (body) => resume(Effect.succeed(body))))
  }
  return Effect.promise(() =>
    Body.readStream(Stream.toReadableStream(request.stream), request.headers["content-length"], limit)
  )
}

const toResponse = ({ body, bytes, headers, status }: AppResponse): HttpServerResponse.HttpServerResponse => {
  if (body === undefined && bytes === undefined) return HttpServerResponse.empty({ status, headers })
  const { "Content-Length": _, "Content-Type": contentType, ...rest } = headers
  return bytes === undefined
    ? HttpServerResponse.text(body!, { status, headers: rest, contentType })
    : HttpServerResponse.stream(chunks(bytes), { status, headers: rest, contentType, contentLength: bytes.length })
}

/** Bytes as a stream of one chunk per element: the platform waits for `drain` between its chunks. */
const chunks = (bytes: Uint8Array): Stream.Stream<Uint8Array> =>
  Stream.unfold(0, (offset) => {
    if (offset >= bytes.length) return Effect.succeed(undefined)
    const chunk = Chunks.chunkAt(bytes, offset)
    return Effect.succeed([chunk, offset + chunk.length] as const)
  })

const notMounted = (request: HttpServerRequest.HttpServerRequest) =>
  toResponse({
    status: 404,
    headers: { "Content-Type": "application/json", [RequestId.HEADER]: RequestId.of(request.headers["x-request-id"]) },
    body: ErrorResponse.STATIC.routeNotFound.body
  })

const toAppRequest = (request: HttpServerRequest.HttpServerRequest, url: string, basePath: string): AppRequest => ({
  method: request.method,
  url,
  basePath,
  header: (name) => request.headers[name],
  remoteAddress: Option.getOrUndefined(request.remoteAddress),
  readBody: (limit) => readBody(request, limit)
})

/**
 * The application as an `HttpApp`: `HttpRouter.all("/v1/*", app)`, `HttpRouter.get("/docs", app)`,
 * or `HttpRouter.mountApp("/petstore", app)` with `basePath: "/petstore"`.
 */
export const httpApp = (options: HttpAppOptions = {}): Effect.Effect<HttpApp, never, App> => {
  const basePath = Mount.normalizeBasePath(options.basePath)
  return Effect.map(App, (app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const url = Mount.routedUrl(request.originalUrl, basePath)
      return url === undefined
        ? Effect.succeed(notMounted(request))
        : Effect.map(app.handle(toAppRequest(request, url, basePath)), toResponse)
    }))
}

/**
 * The pet store's groups for a host `HttpApi` that includes them
 * (`HttpApi.make("host").add(…).addHttpApi(Api.Api)`): provide this layer to the host's
 * `HttpApiBuilder.api(HostApi)`; with `basePath` for an API added under a prefix
 * (`addHttpApi(Api.Api.prefix("/petstore"))`). The pet store's paths (`App.paths`) are answered by the
 * application before the host's router sees them, so authentication, limits, validation and
 * error bodies are the pet store's own; the groups' handlers answer the same way.
 */
export const layerHttpApi = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  options: HttpAppOptions = {}
): Layer.Layer<HttpApiGroup.Service<Id, "animals"> | HttpApiGroup.Service<Id, "messages"> | HttpApiGroup.Service<Id, "usage">, never, App | HttpRouter.HttpRouter> => {
  const basePath = Mount.normalizeBasePath(options.basePath)
  const serve = Effect.flatMap(httpApp(options), (app) => Effect.map(App, (service) => ({ app, paths: pathsOf(service) })))
  const host = api as unknown as HttpApi.HttpApi<string, HttpApiGroup.Top>
  const group = (name: "animals" | "messages" | "usage") =>
    HttpApiBuilder.group(host, name, (handlers): any =>
      Effect.map(serve, ({ app }) =>
        Object.keys(host.groups[name]!.endpoints).reduce(
          (h: any, endpoint) => h.handleRaw(endpoint, () => app),
          handlers
        )))
  // Answers the pet store's paths before the host's router decodes anything.
  const front = HttpRouter.middleware(
    Effect.map(serve, ({ app, paths }) => (next: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const url = Mount.routedUrl(request.originalUrl, basePath)
        return url !== undefined && Mount.owns(paths, url) ? app : next
      })),
    { global: true }
  )
  // The groups declare the API key middleware; the application checks keys itself.
  const keys = Layer.succeed(ApiKeyAuth, { bearerAuth: (httpEffect: unknown) => httpEffect } as never)
  // Typed by hand: the group layers are built against the host's API, whose type only says it
  // includes the pet store's groups.
  return Layer.mergeAll(group("animals"), group("messages"), group("usage"), front as Layer.Layer<never, never, any>).pipe(Layer.provide(keys)) as unknown as Layer.Layer<
    HttpApiGroup.Service<Id, "animals"> | HttpApiGroup.Service<Id, "messages"> | HttpApiGroup.Service<Id, "usage">,
    never,
    App | HttpRouter.HttpRouter
  >
}
