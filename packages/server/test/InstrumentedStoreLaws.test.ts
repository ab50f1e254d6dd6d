/**
 * The store laws run against the stores as production wraps them: every port measured (metrics on)
 * by `InstrumentedStores.instrumentContext` (through `support/InstrumentedLayer`), on memory, SQLite
 * and PostgreSQL, and traced as well on SQLite. The wrapper must change nothing a store answers;
 * each suite's metrics must show the calls it made, so the laws cannot pass on the bare stores by
 * mistake. The laws of what a database keeps across
 * processes (the page-cursor secret, the limiter's state written behind) run on the same wrapping,
 * each process opening the wrapped stores of one database (a SQLite file, a PostgreSQL schema).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { AccountStore, LimiterStateStore, MessageStore, type PageCursor, PetRepository } from "@petstore/core"
import * as Postgres from "@petstore/postgres"
import * as Sqlite from "@petstore/sqlite"
import {
  accountStoreLaws,
  cursorSecretStoreLaws,
  limiterPersistenceLaws,
  limiterStateStoreLaws,
  messageStoreLaws,
  petRepositoryLaws
} from "@petstore/testkit/laws"
import { Effect, Layer, type Scope } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { instrumented } from "./support/InstrumentedLayer.js"
import { Metrics } from "../src/Metrics.js"

const database = await TestDatabase.make()

/** Registers every store law on `stores` wrapped as production wraps them, and checks the metrics saw the calls. */
const lawsOnInstrumented = <E>(
  name: string,
  stores: Layer.Layer<PetRepository.PetRepository | AccountStore.AccountStore | MessageStore.MessageStore | LimiterStateStore.LimiterStateStore, E>,
  options: { readonly numRuns: number; readonly tracing: boolean }
) => {
  const metrics = new Metrics()
  const wrapped = instrumented(stores, { metrics, tracing: options.tracing })
  petRepositoryLaws(`${name}, instrumented`, wrapped, options)
  accountStoreLaws(`${name}, instrumented`, wrapped, options)
  messageStoreLaws(`${name}, instrumented`, wrapped, options)
  limiterStateStoreLaws(`${name}, instrumented`, wrapped, options)
  afterAll(() => {
    const calls = (store: string) =>
      metrics.storeOperations.filter((c) => c.store === store).reduce((n, c) => n + c.duration.count, 0)
    for (const store of ["PetRepository", "AccountStore", "MessageStore", "LimiterStateStore"]) {
      expect(calls(store), `${name}: calls of ${store} measured`).toBeGreaterThan(0)
    }
  })
}

/**
 * Registers the laws of what a database keeps across processes on the stores `open` builds on it,
 * wrapped as production wraps them, and checks the metrics saw the limiter's state store called.
 */
const databaseLawsOnInstrumented = <D, E1, E2>(
  name: string,
  database: Effect.Effect<D, E1, Scope.Scope>,
  open: (database: D) => Layer.Layer<PageCursor.CursorSigner | LimiterStateStore.LimiterStateStore, E2>,
  options: { readonly numRuns: number; readonly tracing: boolean }
) => {
  const metrics = new Metrics()
  const wrapped = (d: D) => instrumented(open(d), { metrics, tracing: options.tracing })
  cursorSecretStoreLaws(`${name}, instrumented`, { database, signer: wrapped }, options)
  limiterPersistenceLaws(`${name}, instrumented`, { database, stateStore: wrapped }, options)
  afterAll(() => {
    const calls = metrics.storeOperations.filter((c) => c.store === "LimiterStateStore").reduce((n, c) => n + c.duration.count, 0)
    expect(calls, `${name}: calls of LimiterStateStore measured`).toBeGreaterThan(0)
  })
}

const memory = Layer.mergeAll(
  PetRepository.PetRepository.layerMemory,
  AccountStore.AccountStore.layerMemory,
  MessageStore.MessageStore.layerMemory,
  LimiterStateStore.LimiterStateStore.layerMemory
)
// Every store on one new database per build, as the server opens them.
const sqlite = Sqlite.LimiterStateStoreSqlite.layer.pipe(Layer.provideMerge(Sqlite.layer({ filename: ":memory:" })))

describe("memory", () => lawsOnInstrumented("memory", memory, { numRuns: 10, tracing: false }))
describe("sqlite", () => lawsOnInstrumented("sqlite :memory:", sqlite, { numRuns: 10, tracing: false }))
describe("sqlite traced", () => lawsOnInstrumented("sqlite :memory: traced", sqlite, { numRuns: 5, tracing: true }))

const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-instrumented-"))
let files = 0
describe("sqlite file", () =>
  databaseLawsOnInstrumented(
    "sqlite file",
    Effect.sync(() => Path.join(folder, `db-${++files}.db`)),
    (filename) => Sqlite.LimiterStateStoreSqlite.layer.pipe(Layer.provideMerge(Sqlite.layer({ filename }))),
    { numRuns: 3, tracing: true }
  ))

if ("skip" in database) {
  describe.skip(`PostgreSQL (${database.skip})`, () => it("skipped", () => {}))
} else {
  // As in PostgresLaws.test.ts: a new schema per build, and a long query bound under the TestClock.
  const fresh = Layer.unwrap(
    Effect.map(Effect.promise(() => database.freshUrl()), (url) => Postgres.layer({ url, poolSize: 4, queryTimeoutMillis: 60_000 }))
  )
  describe("postgres", () => lawsOnInstrumented("postgres", fresh, { numRuns: 5, tracing: false }))
  describe("postgres, across processes", () =>
    databaseLawsOnInstrumented(
      "postgres",
      Effect.promise(() => database.freshUrl()),
      (url) => Postgres.layer({ url, poolSize: 2, queryTimeoutMillis: 60_000 }),
      { numRuns: 3, tracing: false }
    ))
}
