/**
 * The PostgreSQL store's registration: a database shared by any number of instances
 * (`PETSTORE_DATABASE=postgres://…` or `postgresql://…`, with a host), which can take a SQLite
 * file's data (`import-sqlite`). pg is loaded only when the configuration chooses this store.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as DatabaseUrl from "@petstore/postgres/DatabaseUrl"
import * as ServerMetrics from "../ServerMetrics.js"
import { adapter, failWith, layerFrom, StoreAdminError, type StoreRegistration } from "../StoreRegistration.js"
import * as StoreServices from "../StoreServices.js"

const Postgres = adapter(() => import("@petstore/postgres"))

/** The PostgreSQL store's configuration: its URL (a secret: it may hold a password) and pool size. */
export interface PostgresStore {
  readonly _tag: "postgres"
  readonly url: Redacted.Redacted<string>
  readonly poolSize: number
  /** Longest wait for the database before a request answers 503 (`PETSTORE_DATABASE_TIMEOUT_MS`; default 4 s). */
  readonly timeoutMillis?: number | undefined
}

/** The adapter's options for `store`: it bounds every call, the wait for a connection included. */
const options = <A extends object>(store: PostgresStore, rest: A) => ({
  url: Redacted.value(store.url),
  poolSize: store.poolSize,
  ...(store.timeoutMillis === undefined ? {} : { queryTimeoutMillis: store.timeoutMillis }),
  ...rest
})

// A URL with a host, or with the host (a socket directory) in its query.
const hasHost = (value: string): boolean => {
  try {
    const url = new URL(value)
    return url.hostname !== "" || url.searchParams.has("host")
  } catch {
    return false
  }
}

/** The commands' connection: one is enough for work done in one transaction. */
const adminDatabase = (store: PostgresStore) => ({ url: Redacted.value(store.url), poolSize: 1 })

/** @category registrations */
export const postgres: StoreRegistration<PostgresStore> = {
  tag: "postgres",
  selectedBy: {
    database: { schemes: ["postgres", "postgresql"], described: "a postgres:// or postgresql:// URL with a host", valid: hasHost }
  },
  describe: (store) => DatabaseUrl.redact(Redacted.value(store.url)),
  configure: ({ database, poolSize, timeoutMillis }) => ({
    _tag: "postgres",
    url: database,
    poolSize,
    ...(timeoutMillis === undefined ? {} : { timeoutMillis })
  }),
  /**
   * The rate limiter stays in each process (its daily counts and bans saved in PostgreSQL), so with
   * several instances each one applies the plan's limits on its own: that is said once at start.
   */
  services: (config, store) =>
    StoreServices.durable(
      config,
      layerFrom(Postgres, (module) =>
        module.layer(options(store, { batching: ServerMetrics.batchOptions(config), serving: true })))
    ).pipe(
      Layer.tap(() =>
        config.redis === undefined
          ? Effect.logWarning(
            "the rate limiter keeps its state in this process: with several instances on this database, each applies the plan's limits on its own (set PETSTORE_REDIS_URL to share it)"
          )
          : Effect.void
      )
    ),
  accounts: (_, store) =>
    layerFrom(Postgres, (module) => module.layer(options(store, {}))),
  stores: (_, store) => layerFrom(Postgres, (module) => module.layer(options(store, {}))),
  migrate: (store) =>
    Effect.flatMap(Postgres, (module) =>
      Effect.flatMap(module.Database.Database, (db) =>
        Effect.map(module.Migrations.migrate(), (report) => [
          report.applied.length === 0
            ? `PostgreSQL ${db.where}: schema version ${report.version}, already up to date`
            : `PostgreSQL ${db.where}: schema version ${report.from} → ${report.version} (applied ${report.applied.join(", ")})`
        ])).pipe(
          Effect.provide(module.Database.layer(adminDatabase(store))),
          Effect.mapError(failWith)
        )),
  pendingMigrations: (store) =>
    Effect.flatMap(Postgres, (module) =>
      Effect.flatMap(module.Database.Database, (db) =>
        Effect.map(module.Migrations.pending(), ({ pending, version }) => ({
          summary: `PostgreSQL ${db.where}: schema version ${version}, ${pending.length === 0 ? "up to date" : `${pending.length} migration(s) pending`}`,
          pending: pending.map((m) => `${m.id} ${m.name}`)
        }))).pipe(
          Effect.provide(module.Database.layer(adminDatabase(store))),
          Effect.mapError(failWith)
        )),
  petIds: (store, concurrent) =>
    Effect.flatMap(Postgres, (module) =>
      Effect.flatMap(module.Database.Database, (db) =>
        Effect.gen(function*() {
          const switched = concurrent ? yield* module.PetIds.switchToConcurrent : false
          const mode = yield* module.PetIds.mode
          return `PostgreSQL ${db.where}: pet ids ${
            mode === "concurrent"
              ? `taken concurrently (a sequence; listings read up to the frontier)${switched ? ": switched now" : ""}`
              : "taken from the counter row, one insert at a time across instances (petstore pet-ids --concurrent switches, once every instance runs this release)"
          }`
        })).pipe(
          Effect.provide(module.PostgresPetstore.layerDatabase(adminDatabase(store))),
          Effect.mapError((error) =>
            error._tag === "StoreUnavailable" ? new StoreAdminError({ message: module.Database.messageOf(error) }) : failWith(error)
          )
        )),
  importSnapshot: {
    into: "the postgres:// URL of the database",
    run: (store, snapshot) =>
      Effect.flatMap(Postgres, (module) =>
        module.Import.importSnapshot(snapshot).pipe(
          Effect.provide(module.PostgresPetstore.layerDatabase(adminDatabase(store))),
          Effect.mapError((error) =>
            error._tag === "StoreUnavailable"
              ? new StoreAdminError({ message: module.Database.messageOf(error) })
              : failWith(error)
          ),
          Effect.as(`PostgreSQL ${module.redact(Redacted.value(store.url))}`)
        ))
  }
}
