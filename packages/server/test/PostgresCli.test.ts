/**
 * The `petstore` command on PostgreSQL: `migrate`, moving a SQLite file's data into PostgreSQL with
 * `import-sqlite` (then serving it), and messages that never print the database password.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Postgres from "@petstore/postgres"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, createAccount, get, listAll, post, request } from "./support/Http.js"
import { cli, pollUntil, sqliteFile, start, stop } from "./support/ServerProcess.js"

const database = await TestDatabase.make()

describe("PostgreSQL settings", () => {
  it("no message prints the password of the database URL", async () => {
    const secret = "sekret-Pa55word"
    for (const url of [`postgres://petstore:${secret}@127.0.0.1:1/petstore`, `postgresql://petstore:${secret}@127.0.0.1:1/x?sslmode=disable`]) {
      const outcome = await cli({ PETSTORE_DATABASE: url }, ["serve"])
      expect(outcome.code).not.toBe(0)
      expect(outcome.stderr).toMatch(/refuses connections/)
      expect(outcome.stderr).toContain("***")
      expect(outcome.stdout + outcome.stderr).not.toContain(secret)
    }
    const malformed = await cli({ PETSTORE_DATABASE: `postgres://:${secret}@` }, ["serve"])
    expect(malformed.code).not.toBe(0)
    expect(malformed.stderr).toMatch(/PETSTORE_DATABASE/)
    expect(malformed.stdout + malformed.stderr).not.toContain(secret)
  })
})

if ("skip" in database) {
  describe.skip(`petstore on PostgreSQL (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("petstore on PostgreSQL", () => {
    it("TLS parameters in the URL are honoured: sslmode=require connects over TLS or refuses to go on without it", async () => {
      const url = new URL(await database.freshUrl())
      const sql = TestDatabase.connect(url.toString())
      const [{ ssl }] = await sql.query<{ ssl: string }>("SHOW ssl")
      await sql.end()
      url.searchParams.set("sslmode", "require")
      const outcome = await cli({ PETSTORE_DATABASE: url.toString() }, ["migrate"])
      if (ssl === "on") {
        expect(outcome.code).toBe(0)
      } else {
        expect(outcome.code).not.toBe(0)
        expect(outcome.stderr).toMatch(/does not support SSL/)
      }
    })

    it("migrate brings a new database to the current schema, then finds nothing to do; --check says what is pending, applying nothing", async () => {
      const url = await database.freshUrl()
      const latest = Math.max(...Postgres.Migrations.MIGRATIONS.map((m) => m.id))
      const check = await cli({ PETSTORE_DATABASE: url }, ["migrate", "--check"])
      expect(check.code).toBe(1)
      expect(check.stdout.trim().split("\n")).toEqual([
        expect.stringMatching(/schema version 0, \d+ migration\(s\) pending$/),
        ...Postgres.Migrations.MIGRATIONS.map((m) => `pending: ${m.id} ${m.name}`)
      ])
      expect(check.stderr).toMatch(/migrations are pending: run petstore migrate/)
      expect((await cli({ PETSTORE_DATABASE: url }, ["migrate", "--check"])).code).toBe(1)
      const first = await cli({ PETSTORE_DATABASE: url }, ["migrate"])
      expect(first.stderr).toBe("")
      expect(first.code).toBe(0)
      const applied = Postgres.Migrations.MIGRATIONS.map((m) => m.id).join(", ")
      expect(first.stdout).toContain(`schema version 0 → ${latest} (applied ${applied})`)
      const again = await cli({ PETSTORE_DATABASE: url }, ["migrate"])
      expect(again.stdout).toContain(`schema version ${latest}, already up to date`)
      const checked = await cli({ PETSTORE_DATABASE: url }, ["migrate", "--check"])
      expect([checked.code, checked.stdout.trim()]).toEqual([0, expect.stringMatching(new RegExp(`schema version ${latest}, up to date$`))])
      // A schema a newer release made that this one cannot work with is refused, as serve refuses it.
      const sql = TestDatabase.connect(url)
      await sql.query("INSERT INTO schema_migrations (id, name, requires_program) VALUES (999, 'future', 999)")
      await sql.end()
      const refused = await cli({ PETSTORE_DATABASE: url }, ["migrate", "--check"])
      expect([refused.code, refused.stdout]).toEqual([1, ""])
      expect(refused.stderr).toMatch(/needs a program that knows schema version 999 or later/)
    }, 60_000)

    it("pet-ids says how the database takes pet ids and switches an upgraded one to concurrent ids; SQLite has nothing to choose", async () => {
      const fresh = await database.freshUrl()
      const made = await cli({ PETSTORE_DATABASE: fresh }, ["pet-ids"])
      expect([made.code, made.stdout.trim()]).toEqual([0, expect.stringMatching(/: pet ids taken concurrently \(a sequence; listings read up to the frontier\)$/)])
      // A database an earlier release made keeps the counter row until the switch.
      const upgraded = await database.freshUrl()
      await Effect.runPromise(
        Postgres.Migrations.migrate(Postgres.Migrations.MIGRATIONS.filter((m) => m.id <= 10)).pipe(
          Effect.provide(Postgres.Database.layer({ url: upgraded, poolSize: 1 }))
        )
      )
      expect((await cli({ PETSTORE_DATABASE: upgraded }, ["pet-ids"])).stdout).toMatch(/pet ids taken from the counter row, one insert at a time/)
      const switched = await cli({ PETSTORE_DATABASE: upgraded }, ["pet-ids", "--concurrent"])
      expect([switched.code, switched.stdout.trim()]).toEqual([0, expect.stringMatching(/pet ids taken concurrently .*: switched now$/)])
      const again = await cli({ PETSTORE_DATABASE: upgraded }, ["pet-ids", "--concurrent"])
      expect([again.code, again.stdout.trim()]).toEqual([0, expect.stringMatching(/pet ids taken concurrently \(a sequence; listings read up to the frontier\)$/)])
      const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-pet-ids-"))
      try {
        const sqlite = await cli(sqliteFile(Path.join(folder, "petstore.db")), ["pet-ids"])
        expect(sqlite.code).not.toBe(0)
        expect(sqlite.stderr).toMatch(/the sqlite store takes pet ids in one writer: there is nothing to choose/)
      } finally {
        Fs.rmSync(folder, { recursive: true, force: true })
      }
    }, 60_000)

    it("import-sqlite moves a SQLite file's data into PostgreSQL: the same keys, pets with their ids, messages, cursors and daily counts", async () => {
      const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-import-"))
      try {
        const filename = Path.join(folder, "petstore.db")
        // Data made the way users make it: through a server on the SQLite file.
        const old = await start({ ...sqliteFile(filename), PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN })
        const account = await createAccount(old.url)
        const free = await createAccount(old.url, { plan: "free" })
        const pets = []
        for (let i = 0; i < 25; i++) {
          pets.push((await post(old.url, "/v1/pets", account.key, { name: `imported ${i}`, categoryId: 1 + (i % 3), status: i % 2 === 0 ? "sold" : "available" })).body)
        }
        const message = (await post(old.url, "/v1/messages", account.key, { message: "moved" })).body
        const firstPage = await get(old.url, "/v1/pets?limit=10&status=sold", account.key)
        const cursorPath = /<([^>]+)>; rel="next"/.exec(firstPage.headers.get("link") ?? "")![1]!
        for (let i = 0; i < 7; i++) expect((await get(old.url, "/v1/pets?limit=1", free.key)).status).toBe(200)
        const revoked = await createAccount(old.url)
        expect((await request(`${old.url}/admin/v1/keys/${revoked.keyId}`, { method: "DELETE", key: ADMIN_TOKEN })).status).toBe(204)
        await pollUntil("the message to be delivered", async () => ((await get(old.url, `/v1/messages/${message.id}`, account.key)).body.status === "delivered" ? true : undefined), 100, 50)
        await stop(old)

        const url = await database.freshUrl()
        const imported = await cli({ PETSTORE_DATABASE: url }, ["import-sqlite", filename])
        expect(imported.stderr).toBe("")
        expect(imported.code).toBe(0)
        expect(imported.stdout).toMatch(/3 accounts, 3 keys, 25 pets, 1 message,/)
        expect(imported.stdout).toMatch(/, the cursor secret/)

        const sql = TestDatabase.connect(url)
        const [quota] = await sql.query("SELECT used FROM limiter_quotas WHERE account_id = $1", [free.accountId])
        await sql.end()
        expect(Number(quota!.used)).toBe(7)

        const server = await start({ PETSTORE_DATABASE: url, PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN })
        try {
          expect(await listAll(server.url, account.key)).toStrictEqual(pets)
          expect((await get(server.url, `/v1/pets/${pets[3].id}`, account.key)).body).toStrictEqual(pets[3])
          const rest = await get(server.url, cursorPath, account.key)
          expect(rest.status).toBe(200)
          expect(rest.body).toStrictEqual(pets.filter((p) => p.status === "sold").slice(10, 20))
          expect((await get(server.url, `/v1/messages/${message.id}`, account.key)).body).toMatchObject({ id: message.id, status: "delivered" })
          expect((await get(server.url, "/v1/pets?limit=1", revoked.key)).status).toBe(401)
          // New pets continue after the imported ids.
          const next = await post(server.url, "/v1/pets", account.key, { name: "after import", categoryId: 1 })
          expect(next.body.id).toBe(pets.at(-1).id + 1)
        } finally {
          await stop(server)
        }

        // A second import into a database that holds data is refused, and changes nothing.
        const twice = await cli({ PETSTORE_DATABASE: url }, ["import-sqlite", filename])
        expect(twice.code).not.toBe(0)
        expect(twice.stderr).toMatch(/already holds accounts, pets, messages; import only into an empty database/)
      } finally {
        Fs.rmSync(folder, { recursive: true, force: true })
      }
    }, 90_000)
  })
}
