/**
 * The store laws run against the stores as production wraps them: every port measured (metrics on)
 * by `InstrumentedStores.layer`, on memory, SQLite and PostgreSQL, and traced as well on SQLite. The
 * wrapper must change nothing a store answers; each suite's metrics must show the calls it made, so
 * the laws cannot pass on the bare stores by mistake.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { AccountStore, LimiterStateStore, MessageStore, PetRepository } from "@petstore/core"
import * as Postgres from "@petstore/postgres"
import * as Sqlite from "@petstore/sqlite"
import { accountStoreLaws, limiterStateStoreLaws, messageStoreLaws, petRepositoryLaws } from "@petstore/testkit/laws"
import { Effect, Layer } from "effect"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import * as InstrumentedStores from "../src/InstrumentedStores.js"
import { Metrics } from "../src/Metrics.js"

const database = await TestDatabase.make()

/** Registers every store law on `stores` wrapped as production wraps them, and checks the metrics saw the calls. */
const lawsOnInstrumented = <E>(
  name: string,
  stores: Layer.Layer<PetRepository.PetRepository | AccountStore.AccountStore | MessageStore.MessageStore | LimiterStateStore.LimiterStateStore, E>,
  options: { readonly numRuns: number; readonly tracing: boolean }
) => {
  const metrics = new Metrics()
  const wrapped = InstrumentedStores.layer(stores, { metrics, tracing: options.tracing })
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

if ("skip" in database) {
  describe.skip(`PostgreSQL (${database.skip})`, () => it("skipped", () => {}))
} else {
  // As in PostgresLaws.test.ts: a new schema per build, and a long query bound under the TestClock.
  const fresh = Layer.unwrapEffect(
    Effect.map(Effect.promise(() => database.freshUrl()), (url) => Postgres.layer({ url, poolSize: 4, queryTimeoutMillis: 60_000 }))
  )
  describe("postgres", () => lawsOnInstrumented("postgres", fresh, { numRuns: 5, tracing: false }))
}
