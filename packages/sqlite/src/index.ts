/**
 * Durable embedded stores for the pet store on SQLite.
 *
 * @since 1.0.0
 */
export * as AccountStoreSqlite from "./AccountStoreSqlite.js"
export * as Connection from "./Connection.js"
export * as ConsoleSessionStoreSqlite from "./ConsoleSessionStoreSqlite.js"
export * as CursorSecretSqlite from "./CursorSecretSqlite.js"
export * as Export from "./Export.js"
export * as GroupCommit from "./GroupCommit.js"
export * as IdempotencyStoreSqlite from "./IdempotencyStoreSqlite.js"
export * as LimiterStateStoreSqlite from "./LimiterStateStoreSqlite.js"
export * as MessageStoreSqlite from "./MessageStoreSqlite.js"
export * as Migrations from "./Migrations.js"
export * as PetRepositorySqlite from "./PetRepositorySqlite.js"
export * as SqlitePetstore from "./SqlitePetstore.js"
export * as ServeLock from "./ServeLock.js"
export * as SqliteReadiness from "./SqliteReadiness.js"
export * as WebhookStoresSqlite from "./WebhookStoresSqlite.js"
export * as UsageStoreSqlite from "./UsageStoreSqlite.js"

export { DatabaseOpenError } from "./Connection.js"
export { layer, layerPetstore } from "./SqlitePetstore.js"
