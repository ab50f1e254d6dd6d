/**
 * Migrations on PostgreSQL: applied exactly once however many instances start at once, refused on a
 * schema the program cannot work with, and additive, so a program of the previous version keeps
 * working on a database a newer one has migrated (rolling deploys).
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { PetRepository } from "@petstore/core"
import * as Postgres from "@petstore/postgres"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()

const migrateOn = (url: string, migrations = Postgres.Migrations.MIGRATIONS) =>
  Effect.runPromiseExit(
    Postgres.Migrations.migrate(migrations).pipe(Effect.provide(Postgres.Database.layer({ url, poolSize: 1 })))
  )

if ("skip" in database) {
  describe.skip(`PostgreSQL migrations (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("PostgreSQL migrations", () => {
    it("instances starting at once apply each migration exactly once", async () => {
      const url = await database.freshUrl()
      const exits = await Promise.all(Array.from({ length: 6 }, () => migrateOn(url)))
      const applied = exits.flatMap((exit) => {
        expect(Exit.isSuccess(exit)).toBe(true)
        return Exit.isSuccess(exit) ? exit.value.applied : []
      })
      expect([...applied].sort((a, b) => a - b)).toStrictEqual(Postgres.Migrations.MIGRATIONS.map((m) => m.id))
      const sql = TestDatabase.connect(url)
      const rows = await sql.query("SELECT id FROM schema_migrations")
      await sql.end()
      expect(rows.length).toBe(Postgres.Migrations.MIGRATIONS.length)
    })

    it("a database whose schema needs a newer program is refused with a message that says so", async () => {
      const url = await database.freshUrl()
      const future = [...Postgres.Migrations.MIGRATIONS, { id: 99, name: "future_breaking", statements: [], requiresProgram: 99 }]
      expect(Exit.isSuccess(await migrateOn(url, future))).toBe(true)
      const refused = await migrateOn(url)
      expect(Exit.isFailure(refused)).toBe(true)
      const message = Exit.isFailure(refused) ? Cause.pretty(refused.cause) : ""
      const known = Math.max(...Postgres.Migrations.MIGRATIONS.map((m) => m.id))
      expect(message).toContain(`schema version 99 needs a program that knows schema version 99 or later; this program knows up to ${known}`)
    })

    it("a program of the previous version keeps serving on a database a newer one migrated additively", async () => {
      const url = await database.freshUrl()
      const newer = [
        ...Postgres.Migrations.MIGRATIONS,
        {
          id: Math.max(...Postgres.Migrations.MIGRATIONS.map((m) => m.id)) + 1,
          name: "future_additive",
          statements: [
            "ALTER TABLE pets ADD COLUMN nickname text NOT NULL DEFAULT ''",
            "CREATE TABLE pet_photos (pet_id bigint NOT NULL, url text NOT NULL)"
          ]
        }
      ]
      expect(Exit.isSuccess(await migrateOn(url, newer))).toBe(true)
      // The current program on the newer schema: it starts (no refusal) and its stores work.
      const pets = await Effect.runPromise(
        Effect.gen(function*() {
          const repo = yield* PetRepository.PetRepository
          const pet = yield* repo.insert({ name: "Rex", categoryId: 1 as never, status: "available" })
          return { pet, found: yield* repo.findById(pet.id), page: yield* repo.listAfter({ afterId: 0, limit: 10, status: Option.none() }) }
        }).pipe(Effect.provide(Layer.orDie(Postgres.layer({ url, poolSize: 2 }))))
      )
      expect(Option.getOrThrow(pets.found)).toStrictEqual(pets.pet)
      expect(pets.page).toStrictEqual([pets.pet])
    })
  })
}
