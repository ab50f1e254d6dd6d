/**
 * Shared stores for the pet store on PostgreSQL, for one instance or several at once.
 *
 * @since 1.0.0
 */
export * as AccountStorePg from "./AccountStorePg.js"
export * as ConsoleSessionStorePg from "./ConsoleSessionStorePg.js"
export * as CursorSecretPg from "./CursorSecretPg.js"
export * as Database from "./Database.js"
export * as DatabaseUrl from "./DatabaseUrl.js"
export * as IdempotencyStorePg from "./IdempotencyStorePg.js"
export * as LimiterStateStorePg from "./LimiterStateStorePg.js"
export * as UsageStorePg from "./UsageStorePg.js"
export * as MessageStorePg from "./MessageStorePg.js"
export * as Import from "./Import.js"
export * as Migrations from "./Migrations.js"
export * as PetIds from "./PetIds.js"
export * as PetRepositoryPg from "./PetRepositoryPg.js"
export * as Serving from "./Serving.js"
export * as PostgresPetstore from "./PostgresPetstore.js"
export * as ReadinessPg from "./ReadinessPg.js"
export * as WebhookStoresPg from "./WebhookStoresPg.js"
export * as WriteBatcher from "./WriteBatcher.js"

export { DatabaseOpenError } from "./Database.js"
export { isUrl, redact } from "./DatabaseUrl.js"
export { layer, layerPetstore } from "./PostgresPetstore.js"
