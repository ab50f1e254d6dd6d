/**
 * The store registry: which store a configuration selects, the sentence an unknown database gets,
 * and a store added by one registration alone (configuration, services, readiness, commands).
 */
import { describe, expect, it } from "@effect/vitest"
import { Accounts, AccountStore, Readiness } from "@petstore/core"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describeError, ServerConfig, storeConfig } from "../src/Config.js"
import * as Main from "../src/Main.js"
import * as StoreAdmin from "../src/StoreAdmin.js"
import type { StoreRegistration } from "../src/StoreRegistration.js"
import * as StoreRegistry from "../src/StoreRegistry.js"
import * as StoreServices from "../src/StoreServices.js"
import * as MemoryStore from "../src/stores/memory.js"

const read = (env: Record<string, string>, registry: StoreRegistry.StoreRegistry = StoreRegistry.builtIn) =>
  Effect.provideService(storeConfig(registry), ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env))

const refusal = (env: Record<string, string>, registry?: StoreRegistry.StoreRegistry) =>
  Effect.map(Effect.flip(read(env, registry)), describeError)

const BUILT_IN_RULE = "PETSTORE_DATABASE must be a file path, :memory:, or a postgres:// or postgresql:// URL with a host"

/** A store none of the server's files knows: everything about it is in this one value. */
interface FakeStore {
  readonly _tag: "fake"
  readonly url: string
}

const fake: StoreRegistration<FakeStore> = {
  tag: "fake",
  selectedBy: { database: { schemes: ["fake"], described: "a fake:// URL" } },
  configure: ({ database }) => ({ _tag: "fake", url: Redacted.value(database) }),
  describe: (store) => store.url,
  services: (config, store) =>
    StoreServices.inMemory(
      config,
      Layer.merge(
        MemoryStore.ports,
        Layer.succeed(Readiness.StoreReadiness, { check: Effect.succeed<Readiness.Check>({ state: "degraded", reason: `fake at ${store.url}` }) })
      )
    ),
  accounts: () => AccountStore.AccountStore.layerMemory,
  migrate: (store) => Effect.succeed([`fake ${store.url}: nothing to migrate`]),
  pendingMigrations: (store) => Effect.succeed({ summary: `fake ${store.url}: nothing to migrate`, pending: [] }),
  importSnapshot: { into: "a fake:// URL", run: (store) => Effect.succeed(`fake ${store.url}`) }
}

const withFake = StoreRegistry.make([...StoreRegistry.builtIn.registrations, fake])

/** A whole server configuration (memory, metrics on) with `store` in place of its store. */
const serverConfig = (store: ServerConfig["store"]) =>
  Effect.map(
    Effect.provideService(ServerConfig, ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown({ PETSTORE_STORE: "memory" })),
    (config): ServerConfig => ({ ...config, store })
  )

describe("StoreRegistry", () => {
  it.effect("PETSTORE_STORE and the form of PETSTORE_DATABASE select the built-in stores", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
        [{}, "sqlite"],
        [{ PETSTORE_STORE: "sqlite" }, "sqlite"],
        [{ PETSTORE_DATABASE: "./data/other.db" }, "sqlite"],
        [{ PETSTORE_DATABASE: ":memory:" }, "sqlite"],
        [{ PETSTORE_DATABASE: "file:x.db" }, "sqlite"],
        [{ PETSTORE_DATABASE: "postgres://db.internal/petstore" }, "postgres"],
        [{ PETSTORE_DATABASE: "PostgreSQL://db.internal/petstore" }, "postgres"],
        [{ PETSTORE_DATABASE: "postgresql:///petstore?host=/var/run/postgresql" }, "postgres"],
        [{ PETSTORE_STORE: "memory" }, "memory"]
      ]
      for (const [env, tag] of cases) {
        const store = yield* read(env)
        expect(store._tag, JSON.stringify(env)).toBe(tag)
        expect(StoreRegistry.builtIn.of(store).registration.tag).toBe(tag)
      }
      expect(yield* read({})).toEqual({ _tag: "sqlite", filename: "./data/petstore.db" })
      const postgres = yield* read({ PETSTORE_DATABASE: "postgres://u:pw@db/x", PETSTORE_DATABASE_POOL_SIZE: "4" })
      expect(postgres).toMatchObject({ _tag: "postgres", poolSize: 4 })
      expect(Redacted.value((postgres as unknown as { readonly url: Redacted.Redacted<string> }).url)).toBe("postgres://u:pw@db/x")
      // A configuration built in code without a store runs in memory.
      expect(StoreRegistry.builtIn.of(undefined).registration.tag).toBe("memory")
    }))

  it.effect("a database of no registered scheme, or incomplete, is refused in one sentence that lists the forms", () =>
    Effect.gen(function*() {
      // (An empty variable is an unset one in Effect 4's configuration: the default store.)
      for (const database of ["mysql://user:hunter2@db/x", "redis://cache", "postgres://", "   "]) {
        const message = yield* refusal({ PETSTORE_DATABASE: database })
        expect(message, database).toBe(BUILT_IN_RULE)
        expect(message).not.toContain("hunter2")
      }
      expect(yield* refusal({ PETSTORE_STORE: "mongo" })).toBe(`PETSTORE_STORE: Expected "sqlite" | "memory"`)
    }))

  it.effect("PETSTORE_STORE=memory with PETSTORE_DATABASE set is refused: the database would be ignored", () =>
    Effect.gen(function*() {
      for (const database of ["./data/petstore.db", "postgres://u:hunter2@db.internal/petstore"]) {
        const message = yield* refusal({ PETSTORE_STORE: "memory", PETSTORE_DATABASE: database })
        expect(message).toBe(
          "PETSTORE_STORE=memory keeps nothing on disk, but PETSTORE_DATABASE is set: unset PETSTORE_DATABASE, or unset PETSTORE_STORE to use the database it names"
        )
        expect(message).not.toContain("hunter2")
      }
    }))

  it("refuses two registrations with the same tag, and a store it does not know", () => {
    expect(() => StoreRegistry.make([...StoreRegistry.builtIn.registrations, { ...fake, tag: "sqlite" as never }])).toThrow(/same tag/)
    expect(() => StoreRegistry.builtIn.of({ _tag: "fake" })).toThrow(`no store is registered as "fake"`)
  })

  describe("a store added by one registration", () => {
    it.effect("is selected by its scheme, and named in the refusal of every other", () =>
      Effect.gen(function*() {
        expect(yield* read({ PETSTORE_DATABASE: "fake://somewhere" }, withFake)).toEqual({ _tag: "fake", url: "fake://somewhere" })
        expect(yield* read({ PETSTORE_DATABASE: "postgres://db/x" }, withFake)).toMatchObject({ _tag: "postgres" })
        expect(yield* refusal({ PETSTORE_DATABASE: "mysql://db/x" }, withFake)).toBe(`${BUILT_IN_RULE}, or a fake:// URL`)
        // The built-in registry is not changed by another one.
        expect(yield* refusal({ PETSTORE_DATABASE: "fake://somewhere" })).toBe(BUILT_IN_RULE)
      }))

    it.effect("serves with its services, its readiness and its account store", () =>
      Effect.gen(function*() {
        const config = yield* serverConfig({ _tag: "fake", url: "fake://here" } as FakeStore)
        // `Main.services` promises the core services; the registration's readiness comes with them.
        const context = (yield* Layer.build(Main.services(config, withFake))) as Context.Context<Accounts.Accounts | Readiness.StoreReadiness>
        const check = yield* Context.get(context, Readiness.StoreReadiness).check
        expect(check).toEqual({ state: "degraded", reason: "fake at fake://here" })
        const { account } = yield* Effect.flatMap(Accounts.Accounts, (accounts) => accounts.create({ plan: "free" })).pipe(
          Effect.provide(context)
        )
        expect(account.plan).toBe("free")
        const alone = yield* Effect.flatMap(Accounts.Accounts, (accounts) => accounts.countAccounts).pipe(
          Effect.provide(Main.accountServices(config, withFake))
        )
        expect(alone).toBe(0)
      }).pipe(Effect.scoped))

    it.effect("answers migrate and import-sqlite, and is named where another store takes no import", () =>
      Effect.gen(function*() {
        const config = yield* serverConfig({ _tag: "fake", url: "fake://here" } as FakeStore)
        expect(yield* StoreAdmin.migrate(config, withFake)).toEqual(["fake fake://here: nothing to migrate"])

        const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-registry-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true })))
        const filename = Path.join(directory, "source.db")
        yield* StoreAdmin.migrate(yield* serverConfig({ _tag: "sqlite", filename } as ServerConfig["store"]))
        expect(yield* StoreAdmin.importSqlite(config, filename, withFake)).toEqual([
          `imported ${filename} into fake fake://here:`,
          "  0 accounts, 0 keys, 0 pets, 0 messages,",
          "  0 daily counts, 0 key standings"
        ])

        // Counts are said in words: one of a thing is singular.
        expect([0, 1, 2].map((n) => StoreAdmin.count(n, "message"))).toEqual(["0 messages", "1 message", "2 messages"])

        const onMemory = yield* Effect.flip(StoreAdmin.importSqlite(yield* serverConfig(undefined), filename, withFake))
        expect(onMemory.message).toBe("set PETSTORE_DATABASE to the postgres:// URL of the database or a fake:// URL to import into")
        const builtIn = yield* Effect.flip(StoreAdmin.importSqlite(yield* serverConfig(undefined), filename))
        expect(builtIn.message).toBe("set PETSTORE_DATABASE to the postgres:// URL of the database to import into")
      }).pipe(Effect.scoped))
  })
})
