/**
 * Starts the project's server in this process on a free port, optionally with test-only changes:
 * a wrapper around the application's `handle` (to corrupt answers) or other core services
 * (a broken rate limiter ...). Never used outside tests.
 */
import {
  MessageProcessor,
  Petstore,
  RateLimiter,
  SecureRandom,
  Usage,
  UsageStore,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  Webhooks
} from "@petstore/core"
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
  readonly limiter?: (real: RateLimiter.RateLimiter["Service"], instance: number) => RateLimiter.RateLimiter["Service"]
  /** Counts usage per account (default true), written every 100 ms. */
  readonly usage?: boolean
  /**
   * Delivers messages to the accounts' webhook endpoints (default: recorded only, no endpoints),
   * any URL allowed, through `fetch`; `send` may change each request first, or drop it (`undefined`:
   * not sent, yet answered 200, as a server that loses deliveries would).
   */
  readonly webhooks?: {
    readonly send?: (request: WebhookDelivery.DeliveryRequest) => WebhookDelivery.DeliveryRequest | undefined
    /** Why an endpoint URL is refused (default: none is). */
    readonly urlProblem?: (url: string) => string | undefined
  }
}

type Sender = WebhookDelivery.WebhookSender["Service"]

/** POSTs with `fetch` (tests send only to their own receivers on loopback). */
const fetchSender = (change: (request: WebhookDelivery.DeliveryRequest) => WebhookDelivery.DeliveryRequest | undefined): Sender => ({
  send: (original) => {
    const request = change(original)
    if (request === undefined) return Effect.succeed({ _tag: "Answered", status: 200 })
    return Effect.tryPromise((signal) =>
      fetch(request.url, { method: "POST", headers: request.headers, body: request.body, redirect: "manual", signal }).then(async (response) => {
        await response.arrayBuffer()
        return { _tag: "Answered" as const, status: response.status }
      })
    ).pipe(Effect.catch((error) => Effect.succeed({ _tag: "NoAnswer" as const, kind: "unreachable" as const, error: String(error) })))
  }
})

/** The message processor and the webhook admin service, over webhook stores in memory. */
const webhookServices = (webhooks: NonNullable<ServerVariant["webhooks"]>) => {
  const stores = Layer.merge(WebhookEndpoint.WebhookEndpointStore.layerMemory, WebhookAttempt.WebhookAttemptStore.layerMemory)
  const processor = WebhookDelivery.layer({ attemptTimeoutMillis: 5_000 }).pipe(
    Layer.provide(Layer.succeed(WebhookDelivery.WebhookSender, fetchSender(webhooks.send ?? ((r) => r)))),
    Layer.provide(stores)
  )
  const petstore = Petstore.layerMemory().pipe(Layer.provide(processor))
  return Webhooks.Webhooks.layer({ urlProblem: webhooks.urlProblem ?? (() => undefined) }).pipe(
    Layer.provideMerge(petstore),
    Layer.provide(Layer.merge(stores, SecureRandom.SecureRandom.Live))
  )
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
  const petstore = variant.webhooks === undefined
    ? Petstore.layerMemory().pipe(Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly))
    : webhookServices(variant.webhooks)
  const services = Layer.merge(petstore, usage)
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
