/**
 * The PostgreSQL stores together, and the whole pet store on them.
 *
 * @since 1.0.0
 */
import * as Layer from "effect/Layer"
import { type ConsoleSessionStore, type Errors, LimiterPersistence, type LimiterStateStore, type MessageProcessor, Petstore, type Readiness, SecureRandom, type UsageStore, Layers } from "@petstore/core"
import * as AccountStorePg from "./AccountStorePg.js"
import * as ConsoleSessionStorePg from "./ConsoleSessionStorePg.js"
import * as CursorSecretPg from "./CursorSecretPg.js"
import * as IdempotencyStorePg from "./IdempotencyStorePg.js"
import { type Database, DatabaseOpenError, layer as layerPool, messageOf, type PostgresOptions, redact } from "./Database.js"
import * as LimiterStateStorePg from "./LimiterStateStorePg.js"
import * as MessageStorePg from "./MessageStorePg.js"
import * as Migrations from "./Migrations.js"
import * as PetRepositoryPg from "./PetRepositoryPg.js"
import * as ReadinessPg from "./ReadinessPg.js"
import * as Serving from "./Serving.js"
import * as WebhookStoresPg from "./WebhookStoresPg.js"
import * as UsageStorePg from "./UsageStorePg.js"
import type { WriteBatcherOptions } from "./WriteBatcher.js"

/** The database and the options of its stores. */
export interface PostgresStoreOptions extends PostgresOptions {
  /** Group commit of pet and message inserts. */
  readonly batching?: Partial<WriteBatcherOptions> | undefined
  readonly accountStore?: Partial<AccountStorePg.AccountStorePgOptions> | undefined
  /**
   * This process serves the database (see `Serving`): it holds the serving lock, taken before the
   * cursor secret is read, so an import cannot replace the secret under it. Default false.
   */
  readonly serving?: boolean | undefined
}

/** The stores' options and those of the pet store's services. */
export interface PostgresPetstoreOptions extends PostgresStoreOptions {
  readonly petstore?: Petstore.PetstoreOptions | undefined
  readonly limiter?: Partial<LimiterPersistence.LimiterPersistenceOptions> | undefined
}

const openError = (where: string) => (error: Errors.StoreUnavailable) =>
  new DatabaseOpenError({ url: where, message: messageOf(error), cause: error })

/** The pool with the schema up to date. */
export const layerDatabase = (options: PostgresOptions): Layer.Layer<Database, DatabaseOpenError> =>
  Layer.provideMerge(Migrations.layer, layerPool(options))

/**
 * Every core store on one PostgreSQL database: pets, accounts and keys, messages, the page-cursor
 * secret, the limiter's durable state, and the store's readiness probe.
 *
 * @category layers
 */
export const layer = (
  options: PostgresStoreOptions
): Layer.Layer<
  | Petstore.Stores
  | Petstore.WebhookStores
  | UsageStore.UsageStore
  | ConsoleSessionStore.ConsoleSessionStore
  | LimiterStateStore.LimiterStateStore
  | Readiness.StoreReadiness
  | Database,
  DatabaseOpenError
> =>
  Layer.mergeAll(
    PetRepositoryPg.layer(options.batching),
    WebhookStoresPg.layer,
    ReadinessPg.layer,
    AccountStorePg.layer(options.accountStore),
    MessageStorePg.layer(options.batching),
    IdempotencyStorePg.layer(options.batching),
    LimiterStateStorePg.layer,
    UsageStorePg.layer,
    ConsoleSessionStorePg.layer,
    CursorSecretPg.layer.pipe(Layer.provide(SecureRandom.SecureRandom.Live))
  ).pipe(
    Layers.mapError(openError(redact(options.url))),
    Layer.provideMerge(options.serving === true ? Layer.provideMerge(Serving.layer, layerDatabase(options)) : layerDatabase(options))
  )

/**
 * The pet store's services on PostgreSQL, with the rate limiter's daily counts and bans written
 * behind. The message processor is the embedding application's.
 *
 * @example
 * ```ts
 * import { MessageProcessor, Pets } from "@petstore/core"
 * import * as Postgres from "@petstore/postgres"
 * import { Effect, Layer, Option } from "effect"
 *
 * const store = Postgres.layerPetstore({ url: "postgres://petstore@127.0.0.1:5432/petstore" }).pipe(
 *   Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
 * )
 * const page = await Effect.runPromise(
 *   Effect.flatMap(Pets.Pets, (pets) => pets.list({ limit: 20, status: Option.none(), cursor: Option.none() })).pipe(Effect.provide(store))
 * )
 * ```
 *
 * @category layers
 */
export const layerPetstore = (
  options: PostgresPetstoreOptions
): Layer.Layer<
  Petstore.Services | Petstore.Stores | Readiness.StoreReadiness | Database,
  DatabaseOpenError,
  MessageProcessor.MessageProcessor
> =>
  LimiterPersistence.layer(options.limiter).pipe(
    Layers.mapError(openError(redact(options.url))),
    Layer.provideMerge(Petstore.layer(options.petstore).pipe(Layer.provide(SecureRandom.SecureRandom.Live))),
    Layer.provideMerge(layer(options))
  )
