/**
 * Migrations outside the migration transaction (`outsideTransaction`, for `CREATE INDEX
 * CONCURRENTLY`): applied exactly once however many instances start at once, writes to the table go
 * on while the index builds (where a plain `CREATE INDEX` blocks them), and an INVALID index left by
 * a failed build is dropped and built again by the next run.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import * as Postgres from "@petstore/postgres"
import pg from "pg"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()
const MIGRATIONS = Postgres.Migrations.MIGRATIONS
const LATEST = Math.max(...MIGRATIONS.map((m) => m.id))

const migrateOn = (url: string, migrations: ReadonlyArray<Postgres.Migrations.Migration> = MIGRATIONS) =>
  Effect.runPromiseExit(
    Postgres.Migrations.migrate(migrations).pipe(Effect.provide(Postgres.Database.layer({ url, poolSize: 1 })))
  )

/** Today's migrations, then `statement` in one of its own outside the transaction, then an ordinary one. */
const withConcurrent = (statement: string): ReadonlyArray<Postgres.Migrations.Migration> => [
  ...MIGRATIONS,
  { id: LATEST + 1, name: "concurrent_index", statements: [statement], outsideTransaction: true },
  { id: LATEST + 2, name: "after_it", statements: ["CREATE TABLE after_concurrent (id integer PRIMARY KEY)"] }
]

/** Polls `check` (every 20 ms, at most 30 s) until it returns a value. */
const waitFor = async <A>(what: string, check: () => Promise<A | undefined>): Promise<A> => {
  for (let i = 0; i < 1500; i++) {
    const value = await check()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`gave up waiting for ${what}`)
}

/** Whether index `name` exists, and is valid. */
const indexState = async (sql: TestDatabase.Sql, name: string) =>
  (await sql.query<{ valid: boolean }>("SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)", [name]))[0]

const insertPet = (sql: TestDatabase.Sql, id: number, name: string) =>
  sql.query("INSERT INTO pets (id, name, category_id, status) VALUES ($1, $2, 1, 'available')", [id, name])

if ("skip" in database) {
  describe.skip(`PostgreSQL migrations outside the transaction (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("PostgreSQL migrations outside the transaction", () => {
    it("instances starting at once apply it exactly once, and the migrations after it", async () => {
      const url = await database.freshUrl()
      const migrations = withConcurrent("CREATE INDEX CONCURRENTLY IF NOT EXISTS pets_by_name ON pets (name)")
      const exits = await Promise.all(Array.from({ length: 4 }, () => migrateOn(url, migrations)))
      const applied = exits.flatMap((exit) => {
        expect(Exit.isSuccess(exit), Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "").toBe(true)
        return Exit.isSuccess(exit) ? exit.value.applied : []
      })
      expect(applied.sort((a, b) => a - b)).toStrictEqual(migrations.map((m) => m.id))
      for (const exit of exits) if (Exit.isSuccess(exit)) expect(exit.value.version).toBe(LATEST + 2)
      const sql = TestDatabase.connect(url)
      expect((await sql.query("SELECT id FROM schema_migrations")).length).toBe(migrations.length)
      expect(await indexState(sql, "pets_by_name")).toStrictEqual({ valid: true })
      // Applied: a later run has nothing to do.
      const again = await migrateOn(url, migrations)
      expect(Exit.isSuccess(again) ? again.value.applied : "failed").toStrictEqual([])
      await sql.end()
    })

    it("writes to the table go on while the index builds; a plain CREATE INDEX blocks them", async () => {
      const url = await database.freshUrl()
      expect(Exit.isSuccess(await migrateOn(url))).toBe(true)
      const look = TestDatabase.connect(url)
      /**
       * A transaction that wrote to pets stays open, so the build waits for it (both forms do): the
       * build is observably in progress until it commits. Meanwhile another client inserts a pet
       * (waiting at most `lockTimeout` for its lock); what that insert got is returned, once the
       * migration ended.
       */
      const writeDuringBuild = async (migrations: ReadonlyArray<Postgres.Migrations.Migration>, building: string) => {
        const holder = new pg.Client({ connectionString: url })
        const writer = new pg.Client({ connectionString: url })
        await Promise.all([holder.connect(), writer.connect()])
        try {
          await holder.query("BEGIN")
          await holder.query("INSERT INTO pets (id, name, category_id, status) VALUES (1, 'held', 1, 'available')")
          const migration = migrateOn(url, migrations)
          await waitFor(`the build of ${building} to wait for the open transaction`, async () =>
            (await look.query(
              `SELECT 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid)
               WHERE NOT l.granted AND a.query ILIKE $1`,
              [`%INDEX%${building}%`]
            ))[0])
          await writer.query("SET lock_timeout = '1s'")
          const write = await writer.query("INSERT INTO pets (id, name, category_id, status) VALUES (2, 'written', 1, 'available')")
            .then(() => "written", (error: Error) => error.message)
          const recordedMeanwhile = (await look.query("SELECT id FROM schema_migrations WHERE id > $1", [LATEST])).length
          await holder.query("COMMIT")
          const exit = await migration
          expect(Exit.isSuccess(exit), Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "").toBe(true)
          return { write, recordedMeanwhile, index: await indexState(look, building) }
        } finally {
          await Promise.all([holder.end(), writer.end()])
          await look.query("DELETE FROM pets")
        }
      }
      // CONCURRENTLY: the insert goes through while the build waits; the index is recorded once built.
      expect(await writeDuringBuild(withConcurrent("CREATE INDEX CONCURRENTLY IF NOT EXISTS pets_by_name ON pets (name)"), "pets_by_name"))
        .toStrictEqual({ write: "written", recordedMeanwhile: 0, index: { valid: true } })
      // The control: the same build in the transaction holds writes back (the insert gives up on its lock).
      const plain: ReadonlyArray<Postgres.Migrations.Migration> = [
        ...withConcurrent("CREATE INDEX CONCURRENTLY IF NOT EXISTS pets_by_name ON pets (name)"),
        { id: LATEST + 3, name: "plain_index", statements: ["CREATE INDEX pets_by_status_name ON pets (status, name)"] }
      ]
      expect(await writeDuringBuild(plain, "pets_by_status_name"))
        .toStrictEqual({ write: "canceling statement due to lock timeout", recordedMeanwhile: 2, index: { valid: true } })
      await look.end()
    })

    it("an INVALID index left by a failed build is dropped and built again by the next run", async () => {
      const url = await database.freshUrl()
      expect(Exit.isSuccess(await migrateOn(url))).toBe(true)
      const sql = TestDatabase.connect(url)
      await insertPet(sql, 1, "Rex")
      await insertPet(sql, 2, "Rex")
      const migrations = withConcurrent("CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS pets_unique_name ON pets (name)")
      // The build fails on the duplicate names: the index is left INVALID, and not recorded.
      const failed = await migrateOn(url, migrations)
      expect(Exit.isFailure(failed)).toBe(true)
      expect(await indexState(sql, "pets_unique_name")).toStrictEqual({ valid: false })
      expect(await sql.query("SELECT id FROM schema_migrations WHERE id > $1", [LATEST])).toStrictEqual([])
      // With the duplicate gone, the next run drops the invalid index and builds it again.
      await sql.query("DELETE FROM pets WHERE id = 2")
      const again = await migrateOn(url, migrations)
      expect(Exit.isSuccess(again) ? again.value.applied : Cause.pretty((again as Exit.Failure<unknown, unknown>).cause))
        .toStrictEqual([LATEST + 1, LATEST + 2])
      expect(await indexState(sql, "pets_unique_name")).toStrictEqual({ valid: true })
      await sql.end()
    })
  })
}
