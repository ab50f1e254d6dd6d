/**
 * Starts the project's server in this process on a free port, optionally with test-only changes:
 * a wrapper around the application's `handle` (to corrupt answers) or other core services
 * (a broken rate limiter ...). Never used outside tests.
 */
import { MessageProcessor, Petstore, RateLimiter } from "@petstore/core"
import { App, type AppResponse, Server } from "@petstore/http-node"
import { Context, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"

export const ADMIN_TOKEN = "conformance-admin-token-0123"

export interface RunningServer {
  readonly url: string
  readonly close: () => Promise<void>
}

export interface ServerVariant {
  /** Rewrites each answer of the application (request method and url given). */
  readonly corrupt?: (request: { readonly method: string; readonly url: string }, response: AppResponse.AppResponse) => AppResponse.AppResponse
  /** Replaces the rate limiter (it may wrap the one the memory services built). */
  readonly limiter?: (real: RateLimiter.RateLimiter["Type"]) => RateLimiter.RateLimiter["Type"]
}

export const startServer = async (variant: ServerVariant = {}): Promise<RunningServer> => {
  const services = Petstore.layerMemory().pipe(Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly))
  const limiterTag = RateLimiter.RateLimiter
  const patchedServices = variant.limiter === undefined
    ? services
    : Layer.effectContext(
      Effect.map(Effect.context<Layer.Layer.Success<typeof services>>(), (ctx) =>
        Context.add(ctx, limiterTag, variant.limiter!(Context.get(ctx, limiterTag))))
    ).pipe(Layer.provide(services))
  const appLayer = App.App.layer({
    quickstartBasePath: "/v1",
    adminToken: Option.some(Redacted.make(ADMIN_TOKEN)),
    trustProxy: 0,
    servers: [{ url: "http://127.0.0.1/v1", description: "Production" }]
  })
  const corrupt = variant.corrupt
  const wrappedApp = corrupt === undefined
    ? appLayer
    : Layer.effect(
      App.App,
      Effect.map(App.App, (app) => ({
        handle: (request) => Effect.map(app.handle(request), (response) => corrupt({ method: request.method, url: request.url }, response))
      }))
    ).pipe(Layer.provide(appLayer))
  const layer = Server.layer({ port: 0, host: "127.0.0.1", shutdownTimeout: "1 second" }).pipe(
    Layer.provide(wrappedApp),
    Layer.provide(patchedServices)
  )
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const address = Context.get(context, Server.ServerAddress)
  return { url: address.url, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
