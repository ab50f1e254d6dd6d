/**
 * The stores the server knows, in one list, and the questions the rest of the server asks about
 * them: which store a configuration selects, what `PETSTORE_DATABASE` may be, and the registration
 * of a configured store (its layers, readiness and commands). Nothing else in the server switches
 * on a store's kind: adding a store is a package plus one registration (docs/contributing.md).
 *
 * @since 1.0.0
 */
import * as Redacted from "effect/Redacted"
import type { StoreConfig, StoreRegistration, StoreSettings } from "./StoreRegistration.js"
import { memory } from "./stores/memory.js"
import { postgres } from "./stores/postgres.js"
import { sqlite } from "./stores/sqlite.js"

/** The stores of one server, and what the configuration and the commands ask of them. */
export interface StoreRegistry {
  readonly registrations: ReadonlyArray<StoreRegistration>
  /** The values `PETSTORE_STORE` takes, the first its default. */
  readonly storeNames: readonly [string, ...Array<string>]
  /** `PETSTORE_DATABASE` when unset. */
  readonly defaultDatabase: string
  /** The rule `PETSTORE_DATABASE` breaks, as the configuration error says it. */
  readonly databaseRule: string
  /** Whether `value` is a `PETSTORE_DATABASE` some store takes (a URL of no store's scheme is a mistake, not a file name). */
  readonly acceptsDatabase: (value: string) => boolean
  /** The store that `PETSTORE_STORE=storeName` and the settings select, configured. */
  readonly select: (storeName: string, settings: StoreSettings) => StoreConfig
  /**
   * A configured store with its registration; none configured (a configuration built in code):
   * the first store selected without a database (memory).
   */
  readonly of: (store: StoreConfig | undefined) => Configured
}

/** A store's configuration and the registration that made it (so reads it). */
export interface Configured {
  readonly registration: StoreRegistration
  readonly store: StoreConfig
}

// A URL's scheme, before `://`.
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i

// "a, or b, or c": a store's own forms may hold a comma ("a file path, :memory:"), so every choice gets its "or".
const either = (forms: ReadonlyArray<string>): string => forms.join(", or ")

/** A registry of `registrations`; the first one with a `PETSTORE_STORE` name is the default. */
export const make = (registrations: ReadonlyArray<StoreRegistration>): StoreRegistry => {
  const named = registrations.filter((r) => r.selectedBy.store !== undefined)
  const withDatabase = registrations.filter((r) => r.selectedBy.database !== undefined)
  const withoutDatabase = registrations.filter((r) => r.selectedBy.database === undefined)
  if (named.length === 0) throw new Error("a store registry needs a store that PETSTORE_STORE names")
  const tags = new Map(registrations.map((r) => [r.tag, r]))
  if (tags.size < registrations.length) throw new Error("two store registrations have the same tag")

  /** The registration `PETSTORE_DATABASE`'s form names, if any takes it. */
  const byDatabase = (value: string): StoreRegistration | undefined => {
    const scheme = SCHEME.exec(value.trim())?.[1]?.toLowerCase()
    return withDatabase.find((r) =>
      scheme === undefined ? r.selectedBy.database!.schemes.length === 0 : r.selectedBy.database!.schemes.includes(scheme)
    )
  }

  return {
    registrations,
    storeNames: named.map((r) => r.selectedBy.store!) as unknown as readonly [string, ...Array<string>],
    defaultDatabase: withDatabase.find((r) => r.selectedBy.database!.default !== undefined)?.selectedBy.database!.default ?? "",
    databaseRule: `PETSTORE_DATABASE must be ${either(withDatabase.map((r) => r.selectedBy.database!.described))}`,
    acceptsDatabase: (value) => {
      const trimmed = value.trim()
      const registration = trimmed.length === 0 ? undefined : byDatabase(trimmed)
      return registration !== undefined && (registration.selectedBy.database!.valid?.(trimmed) ?? true)
    },
    select: (storeName, settings) => {
      const chosen = named.find((r) => r.selectedBy.store === storeName)!
      const registration = chosen.selectedBy.database === undefined ? chosen : byDatabase(Redacted.value(settings.database)) ?? chosen
      return registration.configure(settings)
    },
    of: (store) => {
      const registration = store === undefined ? withoutDatabase[0] : tags.get(store._tag)
      if (registration === undefined) throw new Error(`no store is registered as ${JSON.stringify(store?._tag)}`)
      return { registration, store: store ?? registration.configure({ database: Redacted.make(""), poolSize: 1 }) }
    }
  }
}

/**
 * The server's stores: a SQLite file (the default), PostgreSQL, or process memory. Their order is
 * the order the configuration's messages list them in.
 */
export const builtIn: StoreRegistry = make([sqlite, postgres, memory])
