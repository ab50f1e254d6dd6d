/**
 * The standalone server: configuration → stores → services → application → HTTP, with a demo
 * account on an empty store when no admin token is configured. The one place that chooses the
 * stores: memory, one SQLite file, or PostgreSQL.
 *
 * @since 1.0.0
 */
import {
  Accounts,
  AccountStore,
  BanPolicy,
  LimiterPersistence,
  type LimiterStateStore,
  MessageProcessor,
  MessageStore,
  PageCursor,
  Petstore,
  PetRepository,
  SecureRandom
} from "@petstore/core"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Api from "@petstore/http-node/Api"
import * as AppModule from "@petstore/http-node/App"
import * as Server from "@petstore/http-node/Server"
import type { ServerConfig } from "./Config.js"
import * as Logging from "./Logging.js"
import * as StoreAdapters from "./StoreAdapters.js"
import * as Tracing from "./Tracing.js"
import * as TransportSecurity from "./TransportSecurity.js"
import * as ServerMetrics from "./ServerMetrics.js"

/** The services of a standalone server, on the stores `services` chooses (or any passed in). */
export type ServicesLayer = Layer.Layer<Petstore.Services, unknown>

/**
 * The OpenAPI `servers` URL of a configured base URL: the document's paths carry the `/v1` prefix
 * (as the routes do), so it is taken off the base URL here.
 */
export const serverUrl = (baseUrl: string): string =>
  baseUrl.endsWith(Api.PUBLIC_PREFIX) ? baseUrl.slice(0, -Api.PUBLIC_PREFIX.length) || "/" : baseUrl

/** The application and its server, for a given configuration and services (metered unless `PETSTORE_METRICS=false`). */
export const layer = (config: ServerConfig, services: ServicesLayer) =>
  Server.layer({ port: config.port, host: config.host, connections: config.connections, drainDelay: config.drainDelayMillis }).pipe(
    Layer.provideMerge(ServerMetrics.appLayer(config, (metrics) =>
      AppModule.App.layer({
        quickstartBasePath: config.quickstartBasePath,
        adminToken: config.adminToken,
        trustProxy: config.trustProxy,
        ipv6Subnet: config.ipv6Subnet,
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
 * The core services over durable `stores` (observed: see `ServerMetrics.observeStores`), the
 * limiter's daily counts and bans written behind, with the default message processor.
 */
const durableServices = <A, E>(
  config: ServerConfig,
  stores: Layer.Layer<A | Petstore.Stores | LimiterStateStore.LimiterStateStore, E>
) =>
  LimiterPersistence.layer().pipe(
    Layer.provideMerge(Petstore.layer(petstoreOptions(config)).pipe(Layer.provide(SecureRandom.SecureRandom.Live))),
    Layer.provideMerge(ServerMetrics.observeStores(config, stores)),
    Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
  )

/** In-memory services with the default message processor. */
export const memoryServices = (config: ServerConfig): ServicesLayer =>
  Petstore.layer(petstoreOptions(config)).pipe(
    Layer.provideMerge(ServerMetrics.observeStores(
      config,
      Layer.mergeAll(PetRepository.PetRepository.layerMemory, AccountStore.AccountStore.layerMemory, MessageStore.MessageStore.layerMemory, PageCursor.CursorSigner.random)
    )),
    Layer.provide(SecureRandom.SecureRandom.Live),
    Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
  )

/**
 * The options of the core services: the key environment, and the rate limiter (with the configured
 * ban grace) on Redis when `PETSTORE_REDIS_URL` is set (shared by every instance), else in this
 * process's memory.
 */
const petstoreOptions = (config: ServerConfig): Petstore.PetstoreOptions => {
  const limiter = { ban: { ...BanPolicy.DEFAULT_OPTIONS, graceMillis: config.banGraceMillis } }
  return {
    environment: config.environment,
    rateLimiter: limiter,
    rateLimiterLayer: config.redis === undefined ? undefined : redisLimiter(config.redis, limiter)
  }
}

const redisLimiter = (redis: NonNullable<ServerConfig["redis"]>, limiter: Petstore.PetstoreOptions["rateLimiter"]) =>
  StoreAdapters.layerFrom(StoreAdapters.redis, (Redis) =>
    Redis.layer({ url: Redacted.value(redis.url), failure: redis.failure, prefix: redis.prefix, limiter }))

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

/**
 * Services on one SQLite file: every write acknowledged is on disk; daily counts and bans survive
 * restarts (see docs/storage.md).
 */
export const sqliteServices = (config: ServerConfig, filename: string): ServicesLayer =>
  durableServices(
    config,
    StoreAdapters.layerFrom(StoreAdapters.sqlite, (Sqlite) =>
      Sqlite.LimiterStateStoreSqlite.layer.pipe(
        Layer.provideMerge(Sqlite.layer({ filename, groupCommit: ServerMetrics.batchOptions(config) }))
      ))
  )

/**
 * Services on PostgreSQL, shared by every instance on the same database. The rate limiter stays in
 * each process (its daily counts and bans saved in PostgreSQL), so with several instances each one
 * applies the plan's limits on its own: that is said once at start.
 */
export const postgresServices = (config: ServerConfig, store: PostgresStore): ServicesLayer =>
  durableServices(
    config,
    StoreAdapters.layerFrom(StoreAdapters.postgres, (Postgres) =>
      Postgres.layer(postgresOptions(store, { batching: ServerMetrics.batchOptions(config) })))
  ).pipe(
    Layer.tap(() =>
      config.redis === undefined
        ? Effect.logWarning(
          "the rate limiter keeps its state in this process: with several instances on this database, each applies the plan's limits on its own (set PETSTORE_REDIS_URL to share it)"
        )
        : Effect.void
    )
  )

type PostgresStore = Extract<NonNullable<ServerConfig["store"]>, { readonly _tag: "postgres" }>

const postgresOptions = <A extends object>(store: PostgresStore, rest: A) => ({
  url: Redacted.value(store.url),
  poolSize: store.poolSize,
  ...rest
})

/** The services the configuration asks for, shared by the server and the command line: the one place that chooses. */
export const services = (config: ServerConfig): ServicesLayer => {
  const store = config.store ?? { _tag: "memory" }
  switch (store._tag) {
    case "memory":
      return memoryServices(config)
    case "sqlite":
      return sqliteServices(config, store.filename)
    case "postgres":
      return postgresServices(config, store)
  }
}

/**
 * Only the accounts service, on the same stores as `services`: what the command line's account and
 * key commands need, without the message worker or the limiter's write-behind.
 */
export const accountServices = (config: ServerConfig): Layer.Layer<Accounts.Accounts, unknown> => {
  const store = config.store ?? { _tag: "memory" }
  const stores: Layer.Layer<AccountStore.AccountStore, unknown> = store._tag === "memory"
    ? AccountStore.AccountStore.layerMemory
    : store._tag === "sqlite"
    ? StoreAdapters.layerFrom(StoreAdapters.sqlite, (Sqlite) => Sqlite.layer({ filename: store.filename }))
    : StoreAdapters.layerFrom(StoreAdapters.postgres, (Postgres) => Postgres.layer(postgresOptions(store, {})))
  return Accounts.Accounts.layer({ environment: config.environment }).pipe(
    Layer.provide(stores),
    Layer.provide(SecureRandom.SecureRandom.Live)
  )
}

/** Runs the server until interrupted (SIGINT/SIGTERM under `NodeRuntime.runMain`). */
export const serve = (config: ServerConfig, servicesLayer: ServicesLayer = services(config)) =>
  Effect.scoped(
    Effect.gen(function*() {
      // Said before connecting, from the URLs alone.
      for (const warning of TransportSecurity.warnings(config, process.env)) yield* Effect.logWarning(warning)
      const context = yield* Layer.build(layer(config, servicesLayer))
      const address = Context.get(context, Server.ServerAddress)
      if (Option.isNone(config.adminToken)) {
        yield* createDemoAccount.pipe(Effect.provide(context))
      }
      yield* Effect.log(`Pet Store Service listening on ${address.url}${Api.PUBLIC_PREFIX} (API reference: ${address.url}/docs)`)
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
