/**
 * The SQLite stores together, and the whole pet store on them.
 *
 * @since 1.0.0
 */
import * as Layer from "effect/Layer"
import { type ConsoleSessionStore, type Errors, LimiterPersistence, type MessageProcessor, Petstore, type Readiness, SecureRandom, type UsageStore, Layers } from "@petstore/core"
import * as AccountStoreSqlite from "./AccountStoreSqlite.js"
import * as ConsoleSessionStoreSqlite from "./ConsoleSessionStoreSqlite.js"
import * as CursorSecretSqlite from "./CursorSecretSqlite.js"
import * as IdempotencyStoreSqlite from "./IdempotencyStoreSqlite.js"
import { Database, type GroupCommitOptions } from "./GroupCommit.js"
import * as LimiterStateStoreSqlite from "./LimiterStateStoreSqlite.js"
import * as MessageStoreSqlite from "./MessageStoreSqlite.js"
import * as Migrations from "./Migrations.js"
import * as PetRepositorySqlite from "./PetRepositorySqlite.js"
import * as SqliteReadiness from "./SqliteReadiness.js"
import * as WebhookStoresSqlite from "./WebhookStoresSqlite.js"
import * as UsageStoreSqlite from "./UsageStoreSqlite.js"
import * as Connection from "./Connection.js"

export interface SqliteStoreOptions extends Connection.SqliteOptions {
  readonly groupCommit?: Partial<GroupCommitOptions> | undefined
  readonly accountStore?: Partial<AccountStoreSqlite.AccountStoreSqliteOptions> | undefined
}

export interface SqlitePetstoreOptions extends SqliteStoreOptions {
  readonly petstore?: Petstore.PetstoreOptions | undefined
  readonly limiter?: Partial<LimiterPersistence.LimiterPersistenceOptions> | undefined
}

/** A store that fails while it is being set up: the file became unusable right after it opened. */
const openError = (filename: string) => (error: Errors.StoreUnavailable) =>
  new Connection.DatabaseOpenError({ filename, message: Connection.explain(filename, error.cause), cause: error })

/** The connection with its schema up to date, and the group-commit access to it. */
export const layerDatabase = (
  options: SqliteStoreOptions
): Layer.Layer<Database | Connection.Connection, Connection.DatabaseOpenError> =>
  Database.layer(options.groupCommit).pipe(
    Layer.provideMerge(Migrations.layer(options.filename)),
    Layer.provideMerge(Connection.layer(options))
  )

/**
 * Every core store on one SQLite file (`:memory:` for a database that ends with the layer): pets,
 * accounts and keys, messages, the page-cursor secret, and the store's readiness probe.
 *
 * @category layers
 */
export const layer = (
  options: SqliteStoreOptions
): Layer.Layer<
  Petstore.Stores | Petstore.WebhookStores | UsageStore.UsageStore | ConsoleSessionStore.ConsoleSessionStore | Readiness.StoreReadiness | Database | Connection.Connection,
  Connection.DatabaseOpenError
> =>
  Layer.mergeAll(
    PetRepositorySqlite.layer,
    WebhookStoresSqlite.layer,
    SqliteReadiness.layer,
    AccountStoreSqlite.layer(options.accountStore),
    MessageStoreSqlite.layer,
    UsageStoreSqlite.layer,
    IdempotencyStoreSqlite.layer,
    ConsoleSessionStoreSqlite.layer,
    CursorSecretSqlite.layer.pipe(Layer.provide(SecureRandom.SecureRandom.Live))
  ).pipe(Layers.mapError(openError(options.filename)), Layer.provideMerge(layerDatabase(options)))

/**
 * The pet store's services on SQLite, with the rate limiter's daily counts and bans written behind.
 * The message processor is the embedding application's.
 *
 * @example
 * ```ts
 * import { MessageProcessor, Pet, Pets } from "@petstore/core"
 * import * as Sqlite from "@petstore/sqlite"
 * import { Effect, Layer } from "effect"
 *
 * const store = Sqlite.layerPetstore({ filename: "petstore.db" }).pipe(
 *   Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
 * )
 * const pet = await Effect.runPromise(
 *   Effect.flatMap(Pets.Pets, (pets) => pets.create({ name: "Rex", categoryId: Pet.CategoryId.make(1), status: "available" })).pipe(Effect.provide(store))
 * )
 * ```
 *
 * @category layers
 */
export const layerPetstore = (
  options: SqlitePetstoreOptions
): Layer.Layer<
  Petstore.Services | Petstore.Stores | Readiness.StoreReadiness | Database | Connection.Connection,
  Connection.DatabaseOpenError,
  MessageProcessor.MessageProcessor
> =>
  LimiterPersistence.layer(options.limiter).pipe(
    Layer.provide(LimiterStateStoreSqlite.layer),
    Layers.mapError(openError(options.filename)),
    Layer.provideMerge(Petstore.layer(options.petstore).pipe(Layer.provide(SecureRandom.SecureRandom.Live))),
    Layer.provideMerge(layer(options))
  )
