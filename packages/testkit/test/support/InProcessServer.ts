/**
 * Starts the project's server in this process on a free port, optionally with test-only changes:
 * a wrapper around the application's `handle` (to corrupt answers) or other core services
 * (a broken rate limiter ...). Never used outside tests.
 */
import { MessageProcessor, Petstore, RateLimiter, SecureRandom, Usage, UsageStore } from "@petstore/core"
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
  /** With several instances: rewrites the answers of one instance (by its index) only. */
  readonly corruptInstance?: (index: number) => ServerVariant["corrupt"]
  /** Replaces the rate limiter (it may wrap the one the memory services built); called once per instance. */
  readonly limiter?: (real: RateLimiter.RateLimiter["Type"], instance: number) => RateLimiter.RateLimiter["Type"]
  /** Counts usage per account (default true), written every 100 ms. */
  readonly usage?: boolean
}

export const startServer = async (variant: ServerVariant = {}): Promise<RunningServer> => {
  const [server] = await startInstances(1, variant)
  return server!
}

/**
 * Starts `count` instances of one deployment on free ports: they share the stores, the message
 * queue and (unless `variant.limiter` replaces it per instance) the rate limiter, as instances
 * sharing PostgreSQL and Redis do.
 */
export const startInstances = async (count: number, variant: ServerVariant = {}): Promise<ReadonlyArray<RunningServer>> => {
  const usage = variant.usage === false ? Layer.empty : Usage.Usage.layer({ flushMillis: 100 }).pipe(
    Layer.provide(Layer.merge(UsageStore.UsageStore.layerMemory, SecureRandom.SecureRandom.Live))
  )
  const services = Layer.merge(Petstore.layerMemory().pipe(Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)), usage)
  const scope = Effect.runSync(Scope.make())
  const shared = await Effect.runPromise(Layer.buildWithScope(services, scope))
  const limiterTag = RateLimiter.RateLimiter
  const appLayer = App.App.layer({
    quickstartBasePath: "/v1",
    adminToken: Option.some(Redacted.make(ADMIN_TOKEN)),
    trustProxy: 0,
    // As the standalone server writes it: the paths carry /v1, so the server URL does not.
    servers: [{ url: "http://127.0.0.1", description: "Production" }]
  })
  const wrap = (corrupt: ServerVariant["corrupt"]) =>
    corrupt === undefined
      ? appLayer
      : Layer.effect(
        App.App,
        Effect.map(App.App, (app) => ({
          handle: (request) => Effect.map(app.handle(request), (response) => corrupt({ method: request.method, url: request.url }, response))
        }))
      ).pipe(Layer.provide(appLayer))
  const servers: Array<RunningServer> = []
  for (let i = 0; i < count; i++) {
    const wrappedApp = wrap(variant.corruptInstance?.(i) ?? variant.corrupt)
    const context = variant.limiter === undefined ? shared : Context.add(shared, limiterTag, variant.limiter(Context.get(shared, limiterTag), i))
    const layer = Server.layer({ port: 0, host: "127.0.0.1", shutdownTimeout: "1 second" }).pipe(
      Layer.provide(wrappedApp),
      Layer.provide(Layer.succeedContext(context))
    )
    const instanceScope = Effect.runSync(Scope.make())
    const built = await Effect.runPromise(Layer.buildWithScope(layer, instanceScope))
    const address = Context.get(built, Server.ServerAddress)
    servers.push({ url: address.url, close: () => Effect.runPromise(Scope.close(instanceScope, Exit.void)) })
  }
  // The shared services close with the last instance.
  let open = count
  return servers.map((server) => ({
    url: server.url,
    close: async () => {
      await server.close()
      if (--open === 0) await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }))
}
