/**
 * `petstore migrate --check` on SQLite, for deploy pipelines: the migrations pending, one a line,
 * and exit 1 while there are any; nothing applied, and a file not made yet is not created.
 * (On PostgreSQL: PostgresCli.test.ts.)
 */
import { describe, expect, it } from "@effect/vitest"
import * as Sqlite from "@petstore/sqlite"
import Sqlite3 from "better-sqlite3"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { cli, sqliteFile } from "./support/ServerProcess.js"

describe("petstore migrate --check (SQLite)", () => {
  it("lists what is pending and exits 1, applying nothing; exits 0 once migrate has run; names a migration a newer release added", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-migrate-check-"))
    const file = Path.join(folder, "pets.db")
    const all = Sqlite.Migrations.MIGRATIONS
    const latest = all.at(-1)!
    try {
      const fresh = await cli(sqliteFile(file), ["migrate", "--check"])
      expect(fresh.code).toBe(1)
      expect(fresh.stdout.trim().split("\n")).toEqual([
        `SQLite ${file}: schema version 0, ${all.length} migration(s) pending`,
        ...all.map((m) => `pending: ${m.id} ${m.name}`)
      ])
      expect(fresh.stderr).toMatch(/^petstore: migrations are pending: run petstore migrate$/m)
      expect(Fs.existsSync(file)).toBe(false)

      expect((await cli(sqliteFile(file), ["migrate"])).code).toBe(0)
      const current = await cli(sqliteFile(file), ["migrate", "--check"])
      expect([current.code, current.stdout.trim()]).toEqual([0, `SQLite ${file}: schema version ${latest.id}, up to date`])

      // The database as the release before the last migration left it: only that one is pending.
      const db = new Sqlite3(file)
      db.prepare("DELETE FROM schema_migrations WHERE id = ?").run(latest.id)
      db.close()
      const older = await cli(sqliteFile(file), ["migrate", "--check"])
      expect([older.code, older.stdout.trim().split("\n")]).toEqual([
        1,
        [`SQLite ${file}: schema version ${latest.id - 1}, 1 migration(s) pending`, `pending: ${latest.id} ${latest.name}`]
      ])
    } finally {
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 60_000)
})
