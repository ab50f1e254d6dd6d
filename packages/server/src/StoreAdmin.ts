/**
 * Work on the store itself rather than through the API: bringing the schema up to date
 * (`petstore migrate`) and moving a SQLite file's data into PostgreSQL (`petstore import-sqlite`).
 *
 * @since 1.0.0
 */
import { StoreSnapshot } from "@petstore/core"
import * as Postgres from "@petstore/postgres"
import * as Sqlite from "@petstore/sqlite"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { ServerConfig } from "./Config.js"

/** Store work that could not be done; `message` is the whole explanation (never a password). */
export class StoreAdminError extends Data.TaggedError("StoreAdminError")<{ readonly message: string }> {}

const failWith = (error: { readonly message: string }) => new StoreAdminError({ message: error.message })

/** Lines that say what `migrate` did. */
export const migrate = (config: ServerConfig): Effect.Effect<ReadonlyArray<string>, StoreAdminError> => {
  const store = config.store ?? { _tag: "memory" }
  switch (store._tag) {
    case "memory":
      return Effect.succeed(["the in-memory store has no schema: nothing to migrate"])
    case "sqlite":
      return Sqlite.Migrations.migrate(store.filename).pipe(
        Effect.map((applied) => [
          applied.length === 0
            ? `SQLite ${store.filename}: schema already up to date`
            : `SQLite ${store.filename}: applied migrations ${applied.join(", ")}`
        ]),
        Effect.provide(Sqlite.Connection.layer({ filename: store.filename })),
        Effect.mapError(failWith)
      )
    case "postgres":
      return Effect.flatMap(Postgres.Database.Database, (db) =>
        Effect.map(Postgres.Migrations.migrate(), (report) => [
          report.applied.length === 0
            ? `PostgreSQL ${db.where}: schema version ${report.version}, already up to date`
            : `PostgreSQL ${db.where}: schema version ${report.from} → ${report.version} (applied ${report.applied.join(", ")})`
        ])).pipe(
          Effect.provide(Postgres.Database.layer({ url: Redacted.value(store.url), poolSize: 1 })),
          Effect.mapError(failWith)
        )
  }
}

/**
 * Copies everything the SQLite file `filename` holds into the configured PostgreSQL database (which
 * must be empty), in one transaction. Lines that say what was copied.
 */
export const importSqlite = (
  config: ServerConfig,
  filename: string
): Effect.Effect<ReadonlyArray<string>, StoreAdminError> => {
  const store = config.store
  if (store === undefined || store._tag !== "postgres") {
    return Effect.fail(
      new StoreAdminError({ message: "set PETSTORE_DATABASE to the postgres:// URL of the database to import into" })
    )
  }
  return Effect.gen(function*() {
    const snapshot = yield* Sqlite.Export.snapshot.pipe(
      Effect.provide(Sqlite.SqlitePetstore.layerDatabase({ filename })),
      Effect.mapError(failWith)
    )
    yield* Postgres.Import.importSnapshot(snapshot).pipe(
      Effect.provide(Postgres.PostgresPetstore.layerDatabase({ url: Redacted.value(store.url), poolSize: 1 })),
      Effect.mapError((error) =>
        error._tag === "StoreUnavailable"
          ? new StoreAdminError({ message: Postgres.Database.messageOf(error) })
          : failWith(error)
      )
    )
    const n = StoreSnapshot.counts(snapshot)
    return [
      `imported ${filename} into PostgreSQL ${Postgres.redact(Redacted.value(store.url))}:`,
      `  ${n.accounts} accounts, ${n.keys} keys, ${n.pets} pets, ${n.messages} messages,`,
      `  ${n.dailyCounts} daily counts, ${n.keyStandings} key standings${snapshot.cursorSecret === undefined ? "" : ", the cursor secret"}`
    ]
  })
}
