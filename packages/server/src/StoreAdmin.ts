/**
 * Work on the store itself rather than through the API: bringing the schema up to date
 * (`petstore migrate`) and moving a SQLite file's data into another store (`petstore
 * import-sqlite`). What each does on a store is that store's registration's to say.
 */
import { StoreSnapshot } from "@petstore/core"
import * as Effect from "effect/Effect"
import type { ServerConfig } from "./ServerConfig.js"
import { StoreAdminError } from "./StoreRegistration.js"
import * as StoreRegistry from "./StoreRegistry.js"
import * as SqliteStore from "./stores/sqlite.js"

export { StoreAdminError } from "./StoreRegistration.js"

/** Lines that say what `migrate` did. */
export const migrate = (
  config: ServerConfig,
  registry: StoreRegistry.StoreRegistry = StoreRegistry.builtIn
): Effect.Effect<ReadonlyArray<string>, StoreAdminError> => {
  const { registration, store } = registry.of(config.store)
  return registration.migrate(store)
}

/** What `migrate --check` finds: where the schema is, and the migrations pending (none: up to date). */
export const pendingMigrations = (
  config: ServerConfig,
  registry: StoreRegistry.StoreRegistry = StoreRegistry.builtIn
): Effect.Effect<{ readonly summary: string; readonly pending: ReadonlyArray<string> }, StoreAdminError> => {
  const { registration, store } = registry.of(config.store)
  return registration.pendingMigrations(store)
}

/** What `pet-ids` finds (and does, with `concurrent`): how the configured store takes pet ids. */
export const petIds = (
  config: ServerConfig,
  concurrent: boolean,
  registry: StoreRegistry.StoreRegistry = StoreRegistry.builtIn
): Effect.Effect<string, StoreAdminError> => {
  const { registration, store } = registry.of(config.store)
  return registration.petIds === undefined
    ? Effect.fail(new StoreAdminError({ message: `the ${registration.tag} store takes pet ids in one writer: there is nothing to choose (PostgreSQL only)` }))
    : registration.petIds(store, concurrent)
}

/**
 * Copies everything the SQLite file `filename` holds into the configured store (which must be
 * empty and take imports: PostgreSQL), in one transaction. Lines that say what was copied.
 */
/** `1 message`, `2 messages`, `0 messages`. */
export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`

export const importSqlite = (
  config: ServerConfig,
  filename: string,
  registry: StoreRegistry.StoreRegistry = StoreRegistry.builtIn
): Effect.Effect<ReadonlyArray<string>, StoreAdminError> => {
  const { registration, store } = registry.of(config.store)
  const target = registration.importSnapshot
  if (target === undefined) {
    const into = registry.registrations.flatMap((r) => r.importSnapshot === undefined ? [] : [r.importSnapshot.into])
    return Effect.fail(new StoreAdminError({ message: `set PETSTORE_DATABASE to ${into.join(" or ")} to import into` }))
  }
  return Effect.gen(function*() {
    const snapshot = yield* SqliteStore.snapshotOf(filename)
    const where = yield* target.run(store, snapshot)
    const n = StoreSnapshot.counts(snapshot)
    return [
      `imported ${filename} into ${where}:`,
      `  ${count(n.accounts, "account")}, ${count(n.keys, "key")}, ${count(n.pets, "pet")}, ${count(n.messages, "message")},`,
      `  ${count(n.dailyCounts, "daily count")}, ${count(n.keyStandings, "key standing")}${
        snapshot.cursorSecret === undefined ? "" : ", the cursor secret"
      }`
    ]
  })
}
