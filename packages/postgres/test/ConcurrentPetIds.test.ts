/**
 * Concurrent pet ids (migration 11, `PetIds`): inserts take ids from a sequence without waiting for
 * each other, and listings stay exact by reading only up to the frontier (the lowest key an insert
 * still open holds) and waiting, when a page is cut short by it, for those inserts to end. Each case
 * holds an insert open on a connection of its own, as an instance in the middle of a batch would.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import pg from "pg"
import { Pet, PetRepository } from "@petstore/core"
import * as Postgres from "@petstore/postgres"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()

const draft = (name: string): PetRepository.PetDraft => ({ name, categoryId: 1 as Pet.CategoryId, status: "available" })

/** A client of its own (the caller ends it), with errors of a terminated backend kept off the process. */
const client = async (url: string): Promise<pg.Client> => {
  const c = new pg.Client({ connectionString: url })
  c.on("error", () => {})
  await c.connect()
  return c
}

/** An insert held open: its transaction took ids and inserted its pet, and has not committed. */
const openInsert = async (url: string, name: string) => {
  const c = await client(url)
  await c.query("BEGIN")
  const { rows: [row] } = await c.query<{ id: string }>(
    `WITH taken AS (SELECT petstore_take_pet_ids(1) AS ids)
     INSERT INTO pets (id, name, category_id, status) SELECT ids[1], $1, 1, 'available' FROM taken RETURNING id`,
    [name]
  )
  return { client: c, id: Number(row!.id), pid: (await c.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid }
}

/** Resolves once some session waits for an advisory lock (a listing waiting at the frontier). */
const listingWaits = async (sql: TestDatabase.Sql) => {
  for (;;) {
    const rows = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
    if (rows[0]!.n > 0) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** The repository on `url`, its calls run as promises. */
const repositoryOn = async (url: string) => {
  const run = <A>(f: (repo: PetRepository.PetRepository["Service"]) => Effect.Effect<A, unknown>) =>
    Effect.runPromise(Effect.scoped(Effect.provide(Effect.flatMap(Effect.gen(function*() { return yield* PetRepository.PetRepository }), f), layerOf(url))))
  return {
    insert: (name: string) => run((repo) => repo.insert(draft(name))),
    list: (afterId: number, limit: number) =>
      run((repo) => repo.listAfter({ afterId: afterId as Pet.PetId, limit, status: Option.none() })).then((pets) => pets.map((p) => p.name))
  }
}

const layerOf = (url: string) =>
  Postgres.PetRepositoryPg.layer().pipe(Layer.provide(Postgres.PostgresPetstore.layerDatabase({ url, poolSize: 4 })))

const mode = (url: string) => Effect.runPromise(Postgres.PetIds.mode.pipe(Effect.provide(Postgres.Database.layer({ url, poolSize: 1 }))))

if ("skip" in database) {
  describe.skip(`concurrent pet ids (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("concurrent pet ids on PostgreSQL", () => {
    it("a new database takes ids concurrently; one migrated from an earlier release keeps the counter row", async () => {
      const fresh = await database.freshUrl()
      await Effect.runPromise(Postgres.Migrations.migrate().pipe(Effect.provide(Postgres.Database.layer({ url: fresh, poolSize: 1 }))))
      expect(await mode(fresh)).toBe("concurrent")
      const older = await database.freshUrl()
      const upTo10 = Postgres.Migrations.MIGRATIONS.filter((m) => m.id <= 10)
      await Effect.runPromise(Postgres.Migrations.migrate(upTo10).pipe(Effect.provide(Postgres.Database.layer({ url: older, poolSize: 1 }))))
      await Effect.runPromise(Postgres.Migrations.migrate().pipe(Effect.provide(Postgres.Database.layer({ url: older, poolSize: 1 }))))
      expect(await mode(older)).toBe("counter")
    })

    it("a newer pet is listed only once every insert that took an id below it has ended: committed, aborted or its backend gone", async () => {
      const url = await database.freshUrl()
      const repo = await repositoryOn(url)
      const sql = TestDatabase.connect(url)
      try {
        expect(await repo.insert("first")).toMatchObject({ name: "first" })
        for (const end of ["commit", "rollback", "terminate"] as const) {
          const open = await openInsert(url, `held-${end}`)
          const newer = await repo.insert(`newer-${end}`)
          expect(newer.id).toBeGreaterThan(open.id)
          // A full page below the frontier is answered at once, without the open insert.
          expect(await repo.list(0, 1)).toEqual(["first"])
          // A page reaching past the open insert's id waits for it.
          let answered = false
          const page = repo.list(open.id - 1, 10).finally(() => {
            answered = true
          })
          await listingWaits(sql)
          expect(answered).toBe(false)
          if (end === "terminate") {
            await sql.query("SELECT pg_terminate_backend($1)", [open.pid])
          } else {
            await open.client.query(end === "commit" ? "COMMIT" : "ROLLBACK")
          }
          expect(await page).toEqual(end === "commit" ? [`held-${end}`, `newer-${end}`] : [`newer-${end}`])
          await open.client.end().catch(() => {})
        }
      } finally {
        await sql.end()
      }
    })

    it("a listing cut by the frontier never skips: a walk started while inserts are open sees every pet once the walk passes it", async () => {
      const url = await database.freshUrl()
      const repo = await repositoryOn(url)
      const sql = TestDatabase.connect(url)
      try {
        for (let i = 0; i < 5; i++) await repo.insert(`before-${i}`)
        const open = await openInsert(url, "held")
        for (let i = 0; i < 5; i++) await repo.insert(`after-${i}`)
        // Pages of 2 from the start: the third page reaches the open insert and waits for it.
        const seen: Array<string> = []
        let after = 0
        const walk = (async () => {
          for (;;) {
            const page = await Effect.runPromise(Effect.scoped(Effect.provide(
              Effect.flatMap(Effect.gen(function*() { return yield* PetRepository.PetRepository }), (r) => r.listAfter({ afterId: after as Pet.PetId, limit: 2, status: Option.none() })),
              layerOf(url)
            )))
            seen.push(...page.map((p) => p.name))
            if (page.length < 2) return
            after = page.at(-1)!.id
          }
        })()
        await listingWaits(sql)
        await open.client.query("COMMIT")
        await walk
        await open.client.end()
        expect(seen).toEqual([...[0, 1, 2, 3, 4].map((i) => `before-${i}`), "held", ...[0, 1, 2, 3, 4].map((i) => `after-${i}`)])
      } finally {
        await sql.end()
      }
    })

    it("a page after the newest id answers at once, and an insert open in another schema of the database is not waited for", async () => {
      const url = await database.freshUrl()
      const other = await database.freshUrl()
      const repo = await repositoryOn(url)
      const elsewhere = await repositoryOn(other)
      const sql = TestDatabase.connect(url)
      try {
        await repo.insert("first")
        await elsewhere.insert("there")
        // The two schemas' keys differ (10 bits of each schema's name: s1 and s2 do not meet).
        const keyOf = async (on: TestDatabase.Sql) => (await on.query<{ key: string }>("SELECT petstore_pet_id_key(0)::text AS key"))[0]!.key
        const otherSql = TestDatabase.connect(other)
        expect(await keyOf(sql)).not.toBe(await keyOf(otherSql))
        await otherSql.end()
        const open = await openInsert(url, "held")
        const newer = await repo.insert("newer")
        // At the tail (after the newest id): nothing to wait for.
        expect(await repo.list(newer.id, 10)).toEqual([])
        // Another schema's listing reaching its newest ids does not wait for this schema's open insert.
        await elsewhere.insert("there too")
        expect(await elsewhere.list(0, 10)).toEqual(["there", "there too"])
        await open.client.query("COMMIT")
        await open.client.end()
        expect(await repo.list(0, 10)).toEqual(["first", "held", "newer"])
      } finally {
        await sql.end()
      }
    })

    it("a listing refuses a transaction that is not READ COMMITTED; the store's connections are, whatever the database's default", async () => {
      const url = await database.freshUrl()
      const repo = await repositoryOn(url)
      await repo.insert("first")
      const c = await client(url)
      try {
        await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ")
        await expect(c.query("SELECT * FROM petstore_list_pets(0, 10, NULL)")).rejects.toThrow(
          /petstore_list_pets needs READ COMMITTED \(this transaction is repeatable read\)/
        )
        await c.query("ROLLBACK")
      } finally {
        await c.end()
      }
      // A URL whose sessions default to SERIALIZABLE: the store's pool still lists.
      const serializable = new URL(url)
      serializable.searchParams.set("options", `${serializable.searchParams.get("options") ?? ""} -c default_transaction_isolation=serializable`.trim())
      expect(await (await repositoryOn(serializable.toString())).list(0, 10)).toEqual(["first"])
    })

    it("the switch: refused while an instance of an earlier release serves; then ids go on above the counter's and older programs refuse the schema", async () => {
      const url = await database.freshUrl()
      const upTo10 = Postgres.Migrations.MIGRATIONS.filter((m) => m.id <= 10)
      await Effect.runPromise(Postgres.Migrations.migrate(upTo10).pipe(Effect.provide(Postgres.Database.layer({ url, poolSize: 1 }))))
      const repo = await repositoryOn(url)
      const counted = [await repo.insert("counted-1"), await repo.insert("counted-2")]
      expect(await mode(url)).toBe("counter")
      const switchNow = () =>
        Effect.runPromise(Effect.result(Postgres.PetIds.switchToConcurrent.pipe(Effect.provide(Postgres.Database.layer({ url, poolSize: 1 })))))
      // An instance of the earlier release holds the serving lock only.
      const earlier = await client(url)
      await earlier.query("SELECT set_config('application_name', 'petstore serve pid 1 on earlier', false)")
      await earlier.query("SELECT pg_advisory_lock_shared(1885697139, hashtext(current_schema()) & 2147483647)")
      const refused = await switchNow()
      expect(refused._tag).toBe("Failure")
      expect(String((refused as { failure: { message: string } }).failure.message)).toContain("petstore serve pid 1 on earlier")
      expect(await mode(url)).toBe("counter")
      // Once it holds the frontier lock too (this release), the switch goes through, and a second one has nothing to do.
      await earlier.query("SELECT pg_advisory_lock_shared(1885697140, hashtext(current_schema()) & 2147483647)")
      expect(await switchNow()).toMatchObject({ _tag: "Success", success: true })
      expect(await switchNow()).toMatchObject({ _tag: "Success", success: false })
      await earlier.end()
      expect(await mode(url)).toBe("concurrent")
      const next = await repo.insert("concurrent-1")
      expect(next.id).toBeGreaterThan(counted[1]!.id)
      expect(await repo.list(0, 10)).toEqual(["counted-1", "counted-2", "concurrent-1"])
      const refusedOlder = await Effect.runPromise(Effect.result(
        Postgres.Migrations.migrate(upTo10).pipe(Effect.provide(Postgres.Database.layer({ url, poolSize: 1 })))
      ))
      expect(refusedOlder._tag).toBe("Failure")
      expect(String((refusedOlder as { failure: { message: string } }).failure.message)).toContain("needs a program that knows schema version 11")
    })

    it("an insert holding the counter row when the switch comes finishes with the counter's ids; the next takes concurrent ids above them", async () => {
      const url = await database.freshUrl()
      const upTo10 = Postgres.Migrations.MIGRATIONS.filter((m) => m.id <= 10)
      await Effect.runPromise(Postgres.Migrations.migrate(upTo10).pipe(Effect.provide(Postgres.Database.layer({ url, poolSize: 1 }))))
      const repo = await repositoryOn(url)
      await repo.insert("counted")
      const open = await openInsert(url, "held-on-counter")
      const switching = Effect.runPromise(Postgres.PetIds.switchToConcurrent.pipe(Effect.provide(Postgres.Database.layer({ url, poolSize: 1 }))))
      const sql = TestDatabase.connect(url)
      try {
        // The switch waits for the counter row; an insert arriving meanwhile waits behind it.
        for (;;) {
          const rows = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted")
          if (rows[0]!.n > 0) break
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
        const meanwhile = repo.insert("meanwhile")
        await open.client.query("COMMIT")
        expect(await switching).toBe(true)
        const concurrent = await meanwhile
        expect(concurrent.id).toBeGreaterThan(open.id)
        expect(await repo.list(0, 10)).toEqual(["counted", "held-on-counter", "meanwhile"])
        expect(await mode(url)).toBe("concurrent")
      } finally {
        await open.client.end()
        await sql.end()
      }
    })
  })
}
