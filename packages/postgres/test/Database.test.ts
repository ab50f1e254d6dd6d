import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer } from "effect"
import { Database, PostgresPetstore } from "@petstore/postgres"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()

const SLEEP = Database.statement("SELECT pg_sleep(5)")
const ONE = Database.statement("SELECT 1 AS one")

if ("skip" in database) {
  describe.skip(`PostgreSQL Database deadlines (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("PostgreSQL Database deadlines", () => {
    // The pool lives as long as the test's scope.
    const db = Effect.flatMap(Effect.promise(() => database.freshUrl()), (url) =>
      Effect.map(Layer.build(PostgresPetstore.layerDatabase({ url, poolSize: 2 })), Context.get(Database.Database)))

    it.scoped("a statement without an answer within its deadline fails as the store unavailable, at the deadline; the pool serves on", () =>
      Effect.gen(function*() {
        const pg = yield* db
        const started = Date.now()
        const exit = yield* Effect.exit(pg.query(SLEEP, [], "200 millis"))
        // The deadline is 200 ms; 3 s is a margin for a busy machine, well short of the statement's 5 s.
        expect(Date.now() - started).toBeLessThan(3_000)
        expect(exit).toMatchObject({ _tag: "Failure" })
        expect(Exit.isFailure(exit) && String(exit.cause)).toMatch(/StoreUnavailable/)
        expect(yield* pg.query<{ one: number }>(ONE, [])).toEqual([{ one: 1 }])
      }))

    it.scoped("a transaction past its deadline is rolled back: nothing it wrote is kept", () =>
      Effect.gen(function*() {
        const pg = yield* db
        yield* pg.transaction((client) => client.query("CREATE TABLE kept (n int)"))
        const exit = yield* Effect.exit(pg.transaction(async (client) => {
          await client.query("INSERT INTO kept VALUES (1)")
          await client.query("SELECT pg_sleep(5)")
        }, "300 millis"))
        expect(exit).toMatchObject({ _tag: "Failure" })
        const rows = yield* pg.transaction((client) => client.query("SELECT count(*)::int AS n FROM kept").then((r) => r.rows))
        expect(rows).toEqual([{ n: 0 }])
      }))

    it.scopedLive("a caller interrupted while its transaction runs: the transaction is rolled back", () =>
      Effect.gen(function*() {
        const pg = yield* db
        yield* pg.transaction((client) => client.query("CREATE TABLE abandoned (n int)"))
        let inserted = false
        const fiber = yield* Effect.fork(pg.transaction(async (client) => {
          await client.query("INSERT INTO abandoned VALUES (1)")
          inserted = true
          await client.query("SELECT pg_sleep(5)")
        }))
        while (!inserted) yield* Effect.sleep("10 millis")
        yield* Fiber.interrupt(fiber)
        const rows = yield* pg.transaction((client) => client.query("SELECT count(*)::int AS n FROM abandoned").then((r) => r.rows))
        expect(rows).toEqual([{ n: 0 }])
      }))
  })
}
