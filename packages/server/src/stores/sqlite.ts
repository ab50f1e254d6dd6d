/**
 * The SQLite store's registration: one file (`PETSTORE_DATABASE`, any value that is not a URL;
 * `:memory:` for a database that ends with the process), every acknowledged write on disk, daily
 * counts and bans kept across restarts (see docs/storage.md); one server per file (a second one
 * refuses to start, naming the process that serves it). better-sqlite3 is loaded only when
 * the configuration chooses this store, or when `import-sqlite` reads a file.
 */
import type { StoreSnapshot } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as ServerMetrics from "../ServerMetrics.js"
import { adapter, failWith, layerFrom, type StoreAdminError, type StoreRegistration } from "../StoreRegistration.js"
import * as StoreServices from "../StoreServices.js"

const Sqlite = adapter(() => import("@petstore/sqlite"))

/** The SQLite store's configuration: its file. */
export interface SqliteStore {
  readonly _tag: "sqlite"
  readonly filename: string
}

/** @category registrations */
export const sqlite: StoreRegistration<SqliteStore> = {
  tag: "sqlite",
  selectedBy: {
    store: "sqlite",
    database: { schemes: [], described: "a file path, :memory:", default: "./data/petstore.db" }
  },
  configure: ({ database }) => ({ _tag: "sqlite", filename: Redacted.value(database) }),
  describe: ({ filename }) => filename,
  services: (config, { filename }) =>
    StoreServices.durable(
      config,
      layerFrom(Sqlite, (module) =>
        module.LimiterStateStoreSqlite.layer.pipe(
          Layer.provideMerge(module.layer({ filename, groupCommit: ServerMetrics.batchOptions(config) })),
          // One server per file: the lock is taken before the file is opened (see ServeLock).
          Layer.provide(module.ServeLock.layer(filename))
        ))
    ),
  accounts: (_, { filename }) => layerFrom(Sqlite, (module) => module.layer({ filename })),
  stores: (_, { filename }) => layerFrom(Sqlite, (module) => module.layer({ filename })),
  migrate: ({ filename }) =>
    Effect.flatMap(Sqlite, (module) =>
      module.Migrations.migrate(filename).pipe(
        Effect.map((applied) => [
          applied.length === 0
            ? `SQLite ${filename}: schema already up to date`
            : `SQLite ${filename}: applied migrations ${applied.join(", ")}`
        ]),
        Effect.provide(module.Connection.layer({ filename })),
        Effect.mapError(failWith)
      )),
  pendingMigrations: ({ filename }) =>
    Effect.flatMap(Sqlite, (module) =>
      module.Connection.isMemory(filename)
        ? Effect.succeed({ summary: "SQLite in memory: each start migrates it; nothing to check", pending: [] })
        : module.Migrations.pending(filename).pipe(
          Effect.map(({ pending, version }) => ({
            summary: `SQLite ${filename}: schema version ${version}, ${pending.length === 0 ? "up to date" : `${pending.length} migration(s) pending`}`,
            pending: pending.map((m) => `${m.id} ${m.name}`)
          })),
          Effect.mapError(failWith)
        ))
}

/** Everything the SQLite file `filename` holds, read in one transaction (what `import-sqlite` copies). */
export const snapshotOf = (filename: string): Effect.Effect<StoreSnapshot.StoreSnapshot, StoreAdminError> =>
  Effect.flatMap(Sqlite, (module) =>
    module.Export.snapshot.pipe(
      Effect.provide(module.SqlitePetstore.layerDatabase({ filename })),
      Effect.mapError(failWith)
    ))
