/**
 * `petstore import-sqlite` and a running instance, with real processes: an import into a PostgreSQL
 * database an instance is serving is refused, naming the instance, and changes nothing (the instance
 * read the cursor secret at start; replacing it under it would break its clients' cursors); once the
 * instance is stopped the import runs, and the cursor a client of the SQLite server holds works on
 * the instance started afterwards. An instance killed with SIGKILL no longer counts as serving.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, createAccount, get, post } from "./support/Http.js"
import { cli, exited, pollUntil, sqliteFile, start, stop } from "./support/ServerProcess.js"

const database = await TestDatabase.make()

const nextPath = (link: string | null) => {
  const next = /<([^>]+)>; rel="next"/.exec(link ?? "")?.[1]
  if (next === undefined) throw new Error(`no next link in ${link}`)
  return next.replace(/^https?:\/\/[^/]+/, "")
}

if ("skip" in database) {
  describe.skip(`import while serving (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("import-sqlite into a database an instance serves", () => {
    it("is refused naming the instance while it runs (or was killed: then it runs), and every cursor a client holds keeps working", async () => {
      const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-import-serving-"))
      const filename = Path.join(folder, "petstore.db")
      const url = await database.freshUrl()
      let instance: Awaited<ReturnType<typeof start>> | undefined
      try {
        // A SQLite server's client holds a cursor.
        const old = await start({ ...sqliteFile(filename), PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN })
        const account = await createAccount(old.url)
        const pets = []
        for (let i = 0; i < 5; i++) pets.push((await post(old.url, "/v1/pets", account.key, { name: `p${i}`, categoryId: 1 })).body)
        const cursorPath = nextPath((await get(old.url, "/v1/pets?limit=2", account.key)).headers.get("link"))
        await stop(old)

        // An instance serves the (empty) PostgreSQL database.
        instance = await start({ PETSTORE_DATABASE: url, PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN })
        // Its own account makes the database not empty too: the refusal for serving is said first.
        const own = await createAccount(instance.url)
        const refused = await cli({ PETSTORE_DATABASE: url }, ["import-sqlite", filename])
        expect(refused.code).not.toBe(0)
        expect(refused.stderr).toContain(`being served by an instance: petstore serve pid ${instance.process.pid} on ${Os.hostname()}`)
        expect(refused.stderr).toMatch(/stop them before importing/)
        // Nothing changed: the instance serves its own account as before.
        expect((await get(instance.url, "/v1/pets?limit=1", own.key)).status).toBe(200)

        // Killed with SIGKILL, it no longer holds the database (its session ends with it).
        instance.process.kill("SIGKILL")
        await exited(instance.process)
        const sql = TestDatabase.connect(url)
        try {
          await sql.query("DELETE FROM api_keys")
          await sql.query("DELETE FROM accounts")
          const imported = await pollUntil("the import to run", async () => {
            const run = await cli({ PETSTORE_DATABASE: url }, ["import-sqlite", filename])
            if (run.code === 0) return run
            expect(run.stderr).toMatch(/being served by/) // only while PostgreSQL has not yet seen the session end
            return undefined
          }, 50, 100)
          expect(imported.stdout).toMatch(/, the cursor secret/)
        } finally {
          await sql.end()
        }

        // The SQLite client's cursor works on the instance started after the import.
        instance = await start({ PETSTORE_DATABASE: url, PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN })
        const rest = await get(instance.url, cursorPath, account.key)
        expect(rest.status).toBe(200)
        expect(rest.body).toStrictEqual(pets.slice(2, 4))
      } finally {
        await stop(instance)
        Fs.rmSync(folder, { recursive: true, force: true })
      }
    }, 120_000)
  })
}
