/**
 * The standalone server: configuration → stores → services → application → HTTP, with a demo
 * account on an empty store when no admin token is configured. The stores are those the
 * configuration selects, built by their registration (`StoreRegistry`).
 *
 * @since 1.0.0
 */
import { Accounts, type Petstore, SecureRandom, Webhooks } from "@petstore/core"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Api from "@petstore/http-node/Api"
import * as AppModule from "@petstore/http-node/App"
import * as Server from "@petstore/http-node/Server"
import type { ServerConfig } from "./ServerConfig.js"
import * as Logging from "./Logging.js"
import * as StoreRegistry from "./StoreRegistry.js"
import * as Tracing from "./Tracing.js"
import * as ConsoleDirectory from "./ConsoleDirectory.js"
import * as TransportSecurity from "./TransportSecurity.js"
import { VERSION } from "./Version.js"
import * as ServerMetrics from "./ServerMetrics.js"
import { urlProblem } from "./WebhookAddress.js"
import * as WebhookSettings from "./WebhookSettings.js"

/** The services of a standalone server, on the stores `services` chooses (or any passed in). */
export type ServicesLayer = Layer.Layer<Petstore.Services, unknown>

/**
 * The OpenAPI `servers` URL of a configured base URL: the document's paths carry the `/v1` prefix
 * (as the routes do), so it is taken off the base URL here.
 */
export const serverUrl = (baseUrl: string): string =>
  baseUrl.endsWith(Api.PUBLIC_PREFIX) ? baseUrl.slice(0, -Api.PUBLIC_PREFIX.length) || "/" : baseUrl

/**
 * The application and its server, for a given configuration and services (metered unless
 * `PETSTORE_METRICS=false`); `logShutdown`: log when the shutdown begins and ends (`serve` does).
 *
 * @example
 * ```ts
 * import { Config, Main } from "@petstore/server"
 * import { ConfigProvider, Effect, Layer } from "effect"
 *
 * const settings = { HOST: "127.0.0.1", PORT: "3000", PETSTORE_STORE: "memory" }
 * const config = await Effect.runPromise(
 *   Effect.provideService(Config.ServerConfig, ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(settings))
 * )
 * await Effect.runPromise(Layer.launch(Main.layer(config, Main.services(config))))
 * ```
 */
export const layer = (config: ServerConfig, services: ServicesLayer, options: { readonly logShutdown?: boolean | undefined } = {}) =>
  Server.layer({
    port: config.port,
    host: config.host,
    connections: config.connections,
    drainDelay: config.drainDelayMillis,
    logShutdown: options.logShutdown
  }).pipe(
    Layer.provideMerge(ServerMetrics.appLayer(config, (metrics) =>
      AppModule.App.layer({
        quickstartBasePath: config.quickstartBasePath,
        adminToken: config.adminToken,
        trustProxy: config.trustProxy,
        ipv6Subnet: config.ipv6Subnet,
        console: config.console === false ? undefined : { directory: ConsoleDirectory.path, sessionHours: config.console?.sessionHours },
        observe: { accessLog: config.log?.accessLog === true, tracing: config.tracing === "otlp" },
        servers: [
          { url: serverUrl(config.publicUrl), description: "Production" },
          ...Option.match(config.stagingUrl, { onNone: () => [], onSome: (url) => [{ url: serverUrl(url), description: "Staging" }] })
        ],
        metrics
      }))),
    Layer.provideMerge(ServerMetrics.observeServices(config, services))
  )

/**
 * On an empty store with no admin API, an account to try things with; its key is printed once, for
 * a person: on the terminal, or on standard error when standard output is not one (it is then the
 * JSON log stream, which a log store keeps). The log only says that the account was created.
 */
const createDemoAccount = Effect.gen(function*() {
  const accounts = yield* Accounts.Accounts
  if ((yield* accounts.countAccounts) > 0) return
  const { account, key } = yield* accounts.create({ plan: "free" })
  const onTerminal = process.stdout.isTTY === true
  const shown = [
    "",
    `Demo account ${account.id} (plan free: ${account.limits.perMinute}/min, ${account.limits.perDay}/day).`,
    "Its API key, shown only this once:",
    "",
    `  ${Redacted.value(key.key)}`,
    ""
  ].join("\n")
  yield* onTerminal ? Console.log(shown) : Console.error(shown)
  yield* Effect.log(`demo account ${account.id} created (plan free); its key was shown once on ${onTerminal ? "the terminal" : "standard error"}`)
})

/** The services the configuration asks for, shared by the server and the command line: the store's registration builds them. */
export const services = (config: ServerConfig, registry: StoreRegistry.StoreRegistry = StoreRegistry.builtIn): ServicesLayer => {
  const { registration, store } = registry.of(config.store)
  return registration.services(config, store)
}

/**
 * Only the accounts service, on the same stores as `services`: what the command line's account and
 * key commands need, without the message worker or the limiter's write-behind.
 */
export const accountServices = (
  config: ServerConfig,
  registry: StoreRegistry.StoreRegistry = StoreRegistry.builtIn
): Layer.Layer<Accounts.Accounts, unknown> => {
  const { registration, store } = registry.of(config.store)
  return Accounts.Accounts.layer({ environment: config.environment }).pipe(
    Layer.provide(registration.accounts(config, store)),
    Layer.provide(SecureRandom.SecureRandom.Live)
  )
}

/**
 * The webhook administration service on the same stores as `services`, without the message worker:
 * what the command line's webhook commands need. Fails for a store without `stores` (memory).
 */
export const webhookServices = (
  config: ServerConfig,
  registry: StoreRegistry.StoreRegistry = StoreRegistry.builtIn
): Layer.Layer<Webhooks.Webhooks, unknown> => {
  const { registration, store } = registry.of(config.store)
  if (registration.stores === undefined) {
    return Layer.unwrap(Effect.fail(`the ${registration.tag} store keeps nothing between commands: use the admin API of a running server`))
  }
  const allowPrivate = WebhookSettings.of(config).allowPrivate
  return Webhooks.Webhooks.layer({ urlProblem: (url) => urlProblem(url, allowPrivate) }).pipe(
    Layer.provide(registration.stores(config, store)),
    Layer.provide(SecureRandom.SecureRandom.Live)
  )
}

/**
 * What the start line says of the server besides its address: its version, its store and where the
 * data lives, its rate limiter, its admin API; never a credential (a database URL without its
 * password, a Redis URL not at all).
 */
export const startFacts = (config: ServerConfig, registry: StoreRegistry.StoreRegistry = StoreRegistry.builtIn): Record<string, unknown> => {
  const { registration, store } = registry.of(config.store)
  return {
    version: VERSION,
    store: store._tag,
    database: registration.describe(store),
    limiter: config.redis === undefined ? "memory" : `redis (failure ${config.redis.failure}, prefix ${config.redis.prefix})`,
    adminApi: Option.isSome(config.adminToken) ? "on" : "off",
    node: process.version
  }
}

/** Runs the server until interrupted (SIGINT/SIGTERM under `NodeRuntime.runMain`). */
export const serve = (
  config: ServerConfig,
  servicesLayer: ServicesLayer = services(config),
  registry: StoreRegistry.StoreRegistry = StoreRegistry.builtIn
) =>
  Effect.scoped(
    Effect.gen(function*() {
      // Said before connecting, from the URLs alone.
      for (const warning of TransportSecurity.warnings(config, process.env)) yield* Effect.logWarning(warning)
      const context = yield* Layer.build(layer(config, servicesLayer, { logShutdown: true }))
      const address = Context.get(context, Server.ServerAddress)
      if (Option.isNone(config.adminToken)) {
        yield* createDemoAccount.pipe(Effect.provide(context))
      }
      yield* Effect.log(`Pet Store Service listening on ${address.url}${Api.PUBLIC_PREFIX} (API reference: ${address.url}/docs)`).pipe(
        Effect.annotateLogs(startFacts(config, registry))
      )
      return yield* Effect.never
    })
  ).pipe(Effect.provide(observability(config)))

/**
 * The logger and the tracer the configuration asks for, around everything the server does: the
 * application, built under them, writes its access lines to the same output.
 */
export const observability = (config: ServerConfig): Layer.Layer<never, Error> =>
  Layer.merge(
    Logging.layer(config.log ?? { format: undefined, level: "info", accessLog: false }),
    Tracing.layer(config.tracing)
  )
