import { describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import {
  accountStoreLaws,
  consoleSessionStoreLaws,
  cursorSecretStoreLaws,
  idempotencyLaws,
  limiterPersistenceLaws,
  limiterStateStoreLaws,
  messageStoreLaws,
  petRepositoryLaws,
  readinessLaws,
  serviceLaws,
  usageStoreLaws,
  webhookStoreLaws
} from "@petstore/testkit/laws"
import * as Postgres from "@petstore/postgres"
import * as TcpProxy from "../../server/test/support/TcpProxy.js"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()

if ("skip" in database) {
  describe.skip(`PostgreSQL laws (${database.skip})`, () => it("skipped", () => {}))
} else {
  // Every build is a new, empty schema of this file's database, with a small pool. The laws move a
  // TestClock by whole seconds while queries are on their way, and the store bounds each query on the
  // Clock: a bound of a minute keeps a step from timing out a query that is merely slow to come back.
  const fresh = Layer.unwrap(
    Effect.map(Effect.promise(() => database.freshUrl()), (url) => Postgres.layer({ url, poolSize: 4, queryTimeoutMillis: 60_000 }))
  )
  petRepositoryLaws("postgres", fresh, { numRuns: 10 })
  accountStoreLaws("postgres", fresh, { numRuns: 10 })
  messageStoreLaws("postgres", fresh, { numRuns: 10 })
  webhookStoreLaws("postgres", fresh, { numRuns: 10 })
  limiterStateStoreLaws("postgres", fresh, { numRuns: 10 })
  usageStoreLaws("postgres", fresh, { numRuns: 10 })
  consoleSessionStoreLaws("postgres", fresh, { numRuns: 10 })
  serviceLaws("postgres", { pets: fresh, accounts: fresh, messages: fresh }, { numRuns: 5 })
  idempotencyLaws("postgres", fresh, { numRuns: 8 })
  cursorSecretStoreLaws("postgres", {
    database: Effect.promise(() => database.freshUrl()),
    signer: (url) => Postgres.layer({ url, poolSize: 2, queryTimeoutMillis: 60_000 })
  }, { numRuns: 5 })
  // The limiter written behind to the database, read back by the next process on it.
  limiterPersistenceLaws("postgres", {
    database: Effect.promise(() => database.freshUrl()),
    stateStore: (url) => Postgres.layer({ url, poolSize: 2, queryTimeoutMillis: 60_000 })
  }, { numRuns: 5 })
  // The store's readiness through a TCP proxy the laws cut (connections reset, new ones refused) or
  // silence (nothing answers: only a timeout ends the wait), and restore.
  readinessLaws("postgres", {
    port: "store",
    dependency: Effect.gen(function*() {
      const direct = new URL(yield* Effect.promise(() => database.freshUrl()))
      const proxy = yield* Effect.acquireRelease(
        Effect.promise(() => TcpProxy.start(direct.hostname, Number(direct.port || 5432))),
        (proxy) => Effect.promise(() => proxy.close())
      )
      const through = new URL(direct)
      through.hostname = "127.0.0.1"
      through.port = String(proxy.port)
      return {
        layer: Postgres.layer({ url: through.toString(), poolSize: 2 }),
        outage: (name: string) => ({
          begin: name === "cut" ? Effect.promise(proxy.cut) : Effect.sync(proxy.silence),
          end: Effect.promise(proxy.restore)
        }),
        secrets: [through.host, "postgres://", "postgres@"]
      }
    }),
    away: "down",
    outages: ["cut", "silent"]
  }, { numRuns: 3 })
}
