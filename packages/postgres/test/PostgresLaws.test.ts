import { describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { accountStoreLaws, cursorSecretStoreLaws, idempotencyLaws, limiterStateStoreLaws, messageStoreLaws, petRepositoryLaws, serviceLaws } from "@petstore/testkit/laws"
import * as Postgres from "@petstore/postgres"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()

if ("skip" in database) {
  describe.skip(`PostgreSQL laws (${database.skip})`, () => it("skipped", () => {}))
} else {
  // Every build is a new, empty schema of this file's database, with a small pool. The laws move a
  // TestClock by whole seconds while queries are on their way, and the store bounds each query on the
  // Clock: a bound of a minute keeps a step from timing out a query that is merely slow to come back.
  const fresh = Layer.unwrapEffect(
    Effect.map(Effect.promise(() => database.freshUrl()), (url) => Postgres.layer({ url, poolSize: 4, queryTimeoutMillis: 60_000 }))
  )
  petRepositoryLaws("postgres", fresh, { numRuns: 10 })
  accountStoreLaws("postgres", fresh, { numRuns: 10 })
  messageStoreLaws("postgres", fresh, { numRuns: 10 })
  limiterStateStoreLaws("postgres", fresh, { numRuns: 10 })
  serviceLaws("postgres", { pets: fresh, accounts: fresh, messages: fresh }, { numRuns: 5 })
  idempotencyLaws("postgres", fresh, { numRuns: 8 })
  cursorSecretStoreLaws("postgres", {
    database: Effect.promise(() => database.freshUrl()),
    signer: (url) => Postgres.layer({ url, poolSize: 2, queryTimeoutMillis: 60_000 })
  }, { numRuns: 5 })
}
