/**
 * The standalone server: configuration → stores → services → application → HTTP, with a demo
 * account on an empty store when no admin token is configured.
 *
 * @since 1.0.0
 */
import { Accounts, AccountStore, MessageProcessor, Petstore, SecureRandom } from "@petstore/core"
import * as Sqlite from "@petstore/sqlite"
import { Console, Context, Effect, Layer, Option, Redacted } from "effect"
import { Api, App as AppModule, Server } from "@petstore/http-node"
import { type ServerConfig } from "./Config.js"

/** The services of a standalone server, on the stores `services` chooses (or any passed in). */
export type ServicesLayer = Layer.Layer<Petstore.Services, unknown>

/**
 * The OpenAPI `servers` URL of a configured base URL: the document's paths carry the `/v1` prefix
 * (as the routes do), so it is taken off the base URL here.
 */
export const serverUrl = (baseUrl: string): string =>
  baseUrl.endsWith(Api.PUBLIC_PREFIX) ? baseUrl.slice(0, -Api.PUBLIC_PREFIX.length) || "/" : baseUrl

/** The application and its server, for a given configuration and services. */
export const layer = (config: ServerConfig, services: ServicesLayer) =>
  Server.layer({ port: config.port, host: config.host }).pipe(
    Layer.provideMerge(
      AppModule.App.layer({
        quickstartBasePath: config.quickstartBasePath,
        adminToken: config.adminToken,
        trustProxy: config.trustProxy,
        servers: [
          { url: serverUrl(config.publicUrl), description: "Production" },
          ...Option.match(config.stagingUrl, { onNone: () => [], onSome: (url) => [{ url: serverUrl(url), description: "Staging" }] })
        ]
      })
    ),
    Layer.provideMerge(services)
  )

/** In-memory services with the default message processor. */
export const memoryServices = (config: ServerConfig): ServicesLayer =>
  Petstore.layerMemory({ environment: config.environment }).pipe(Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly))

/** On an empty store with no admin API, an account to try things with; its key is printed once. */
const createDemoAccount = Effect.gen(function*() {
  const accounts = yield* Accounts.Accounts
  if ((yield* accounts.countAccounts) > 0) return
  const { account, key } = yield* accounts.create({ plan: "free" })
  yield* Console.log(
    [
      "",
      `Demo account ${account.id} (plan free: ${account.limits.perMinute}/min, ${account.limits.perDay}/day).`,
      "Its API key, shown only this once:",
      "",
      `  ${Redacted.value(key.key)}`,
      ""
    ].join("\n")
  )
})

/**
 * Services on one SQLite file: every write acknowledged is on disk; daily counts and bans survive
 * restarts (see docs/storage.md).
 */
export const sqliteServices = (config: ServerConfig, filename: string): ServicesLayer =>
  Sqlite.layerPetstore({ filename, petstore: { environment: config.environment } }).pipe(
    Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
  )

/** The SQLite file the configuration asks for, or none for the in-memory store: the one place that chooses. */
const databaseFile = (config: ServerConfig): Option.Option<string> =>
  config.store === undefined || config.store._tag === "memory" ? Option.none() : Option.some(config.store.filename)

/** The services the configuration asks for, shared by the server and the command line. */
export const services = (config: ServerConfig): ServicesLayer =>
  Option.match(databaseFile(config), {
    onNone: () => memoryServices(config),
    onSome: (filename) => sqliteServices(config, filename)
  })

/**
 * Only the accounts service, on the same stores as `services`: what the command line's account and
 * key commands need, without the message worker or the limiter's write-behind.
 */
export const accountServices = (config: ServerConfig): Layer.Layer<Accounts.Accounts, unknown> => {
  const stores = Option.match(databaseFile(config), {
    onNone: () => AccountStore.AccountStore.layerMemory,
    onSome: (filename) => Sqlite.layer({ filename })
  })
  return Accounts.Accounts.layer({ environment: config.environment }).pipe(
    Layer.provide(stores),
    Layer.provide(SecureRandom.SecureRandom.Live)
  )
}

/** Runs the server until interrupted (SIGINT/SIGTERM under `NodeRuntime.runMain`). */
export const serve = (config: ServerConfig, servicesLayer: ServicesLayer = services(config)) =>
  Effect.scoped(
    Effect.gen(function*() {
      const context = yield* Layer.build(layer(config, servicesLayer))
      const address = Context.get(context, Server.ServerAddress)
      if (Option.isNone(config.adminToken)) {
        yield* createDemoAccount.pipe(Effect.provide(context))
      }
      yield* Effect.log(`Pet Store Service listening on ${address.url}${Api.PUBLIC_PREFIX} (API reference: ${address.url}/docs)`)
      return yield* Effect.never
    })
  )
