/**
 * What a store adapter tells the server about itself, in one value: how the configuration selects
 * it (a `PETSTORE_STORE` name, the forms of `PETSTORE_DATABASE` it takes), how to build its layers
 * (its readiness check among them), and what the store commands (`migrate`, `import-sqlite`) do on
 * it. The server asks the `StoreRegistry` instead of switching on the store's kind, so a new store
 * is a package plus one registration (see docs/contributing.md, "Adding a store").
 *
 * @since 1.0.0
 */
import type { AccountStore, Petstore, Readiness, StoreSnapshot } from "@petstore/core"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import type { ServerConfig, StoreConfig } from "./ServerConfig.js"

export type { StoreConfig } from "./ServerConfig.js"

/** Store work that could not be done; `message` is the whole explanation (never a password). */
export class StoreAdminError extends Data.TaggedError("StoreAdminError")<{ readonly message: string }> {}

/** The settings a registration configures its store from. */
export interface StoreSettings {
  /** `PETSTORE_DATABASE`, read as a secret (a URL may hold a password); its default when unset. */
  readonly database: Redacted.Redacted<string>
  /** `PETSTORE_DATABASE_POOL_SIZE` (default 10). */
  readonly poolSize: number
  /** `PETSTORE_DATABASE_TIMEOUT_MS`: the longest wait for a database server before a request answers 503 (the store's default when unset). */
  readonly timeoutMillis?: number | undefined
}

/** The values of `PETSTORE_DATABASE` a store takes. */
export interface DatabaseForm {
  /**
   * URL schemes, in lower case without `://` (`postgres`). Empty: the values that are not URLs
   * (file paths); at most one registration takes those.
   */
  readonly schemes: ReadonlyArray<string>
  /** The forms in words, for the configuration error (`a postgres:// or postgresql:// URL with a host`). */
  readonly described: string
  /** Whether a value of one of these forms is complete (a URL with a host); absent: every one is. */
  readonly valid?: ((value: string) => boolean) | undefined
  /** `PETSTORE_DATABASE` when it is not set; the first registration that has one gives it. */
  readonly default?: string | undefined
}

/** The services a store serves with: the core's, over its stores, with its readiness check. */
export type StoreServices = Layer.Layer<Petstore.Services | Readiness.StoreReadiness, unknown>

/**
 * One store adapter, as the server sees it. `S` is its configuration; the registry only hands a
 * registration the configurations its own `configure` made.
 */
export interface StoreRegistration<S extends StoreConfig = StoreConfig> {
  /** `S["_tag"]`: how a configuration names this store. */
  readonly tag: S["_tag"]
  /**
   * How the configuration selects it. `store`: a value of `PETSTORE_STORE`. `database`: the forms of
   * `PETSTORE_DATABASE` it takes; a `PETSTORE_STORE` name of a store with a database means "the
   * store `PETSTORE_DATABASE` names" (so the default, `sqlite`, also selects PostgreSQL by its URL).
   */
  readonly selectedBy: { readonly store?: string | undefined; readonly database?: DatabaseForm | undefined }
  /** Where the data lives, in words for the start line (never a credential): a file, a database's host and name. */
  describe(store: S): string
  /** Its configuration from the settings (only called when the configuration selects it). */
  configure(settings: StoreSettings): S
  /** Every service the server runs, over this store, with its readiness (`StoreReadiness`). */
  services(config: ServerConfig, store: S): StoreServices
  /** Only the account store: what the account and key commands need. */
  accounts(config: ServerConfig, store: S): Layer.Layer<AccountStore.AccountStore, unknown>
  /**
   * The stores themselves, without the services' workers: what the webhook commands need. Absent:
   * the store has none to offer a command (its data lives in a server's memory).
   */
  stores?(config: ServerConfig, store: S): Layer.Layer<Petstore.Stores | Petstore.WebhookStores, unknown>
  /** `petstore migrate`: brings the schema up to date; lines that say what it did. */
  migrate(store: S): Effect.Effect<ReadonlyArray<string>, StoreAdminError>
  /**
   * `petstore migrate --check`: the migrations `migrate` would apply (`id name` each), applying none,
   * and a line that says where the schema is.
   */
  pendingMigrations(store: S): Effect.Effect<{ readonly summary: string; readonly pending: ReadonlyArray<string> }, StoreAdminError>
  /**
   * `petstore pet-ids [--concurrent]`: how the store takes pet ids, in words, after switching to
   * concurrent ids when `concurrent` is set. Absent: one writer takes them, there is nothing to choose.
   */
  petIds?(store: S, concurrent: boolean): Effect.Effect<string, StoreAdminError>
  /**
   * `petstore import-sqlite` into this store. Absent: the store takes no import. `into` completes
   * "set PETSTORE_DATABASE to … to import into"; `run` answers where the data went, in words.
   */
  readonly importSnapshot?: {
    readonly into: string
    run(store: S, snapshot: StoreSnapshot.StoreSnapshot): Effect.Effect<string, StoreAdminError>
  } | undefined
}

/**
 * An adapter's module, imported when first used: a server on memory never loads better-sqlite3 or
 * pg, one on SQLite never loads pg (their modules cost start-up time and resident memory).
 */
export const adapter = <M>(load: () => Promise<M>): Effect.Effect<M> => Effect.promise(load)

/** A layer `make` builds from an adapter's module, loaded when the layer is built. */
export const layerFrom = <M, A, E, R>(
  module: Effect.Effect<M>,
  make: (module: M) => Layer.Layer<A, E, R>
): Layer.Layer<A, E, R> => Layer.unwrap(Effect.map(module, make))

/** An adapter's error as a store command's failure (its message already says what to do). */
export const failWith = (error: { readonly message: string }): StoreAdminError => new StoreAdminError({ message: error.message })
