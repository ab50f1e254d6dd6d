import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer } from "effect"
import { Database, PostgresPetstore } from "@petstore/postgres"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()

const ONE = Database.statement("SELECT 1 AS one")

if ("skip" in database) {
  describe.skip(`PostgreSQL Database deadlines (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("PostgreSQL Database deadlines", () => {
    // The pool lives as long as the test's scope.
    const db = (poolSize: number) =>
      Effect.flatMap(Effect.promise(() => database.freshUrl()), (url) =>
        Effect.map(Layer.build(PostgresPetstore.layerDatabase({ url, poolSize })), Context.get(Database.Database)))

    it.live("a statement waiting for a connection is cut at its deadline, as the store unavailable; the pool serves on", () =>
      Effect.gen(function*() {
        const pg = yield* db(1)
        // The pool's only connection is busy for 2 s; node-postgres's own timeouts (the statement's, the
        // connection's 3 s) do not cut a wait for it, the deadline does.
        const busy = yield* Effect.forkChild(pg.transaction((client) => client.query("SELECT pg_sleep(2)")))
        yield* Effect.sleep("100 millis")
        const started = Date.now()
        const exit = yield* Effect.exit(pg.query(ONE, [], "200 millis"))
        // The deadline is 200 ms; 1.5 s is a margin for a busy machine, short of the 2 s the connection is busy.
        expect(Date.now() - started).toBeLessThan(1_500)
        expect(Exit.isFailure(exit) && String(exit.cause)).toMatch(/StoreUnavailable/)
        yield* Fiber.join(busy)
        expect(yield* pg.query<{ one: number }>(ONE, [])).toEqual([{ one: 1 }])
      }))

    it.live("a transaction past its deadline is rolled back: what it wrote is not kept, though its work would have ended", () =>
      Effect.gen(function*() {
        const pg = yield* db(2)
        yield* pg.transaction((client) => client.query("CREATE TABLE kept (n int)"))
        const exit = yield* Effect.exit(pg.transaction(async (client) => {
          await client.query("INSERT INTO kept VALUES (1)")
          await client.query("SELECT pg_sleep(1)")
        }, "300 millis"))
        expect(exit).toMatchObject({ _tag: "Failure" })
        // Past the time its work would have committed, had the connection been kept.
        yield* Effect.sleep("1500 millis")
        const rows = yield* pg.transaction((client) => client.query("SELECT count(*)::int AS n FROM kept").then((r) => r.rows))
        expect(rows).toEqual([{ n: 0 }])
      }))

    it.live("a caller interrupted while its transaction runs: the transaction is rolled back", () =>
      Effect.gen(function*() {
        const pg = yield* db(2)
        yield* pg.transaction((client) => client.query("CREATE TABLE abandoned (n int)"))
        let inserted = false
        const fiber = yield* Effect.forkChild(pg.transaction(async (client) => {
          await client.query("INSERT INTO abandoned VALUES (1)")
          inserted = true
          await client.query("SELECT pg_sleep(1)")
        }))
        while (!inserted) yield* Effect.sleep("10 millis")
        yield* Fiber.interrupt(fiber)
        yield* Effect.sleep("1500 millis")
        const rows = yield* pg.transaction((client) => client.query("SELECT count(*)::int AS n FROM abandoned").then((r) => r.rows))
        expect(rows).toEqual([{ n: 0 }])
      }))
  })
}
