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
  it("lists what is pending and exits 1, applying nothing and changing no byte; exits 0 once migrate has run; refuses a newer schema", async () => {
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
      // A check opens the file read-only: it changes nothing in it, and makes no journal beside it.
      const bytes = Fs.readFileSync(file)
      const beside = Fs.readdirSync(folder).sort()
      const current = await cli(sqliteFile(file), ["migrate", "--check"])
      expect([current.code, current.stdout.trim()]).toEqual([0, `SQLite ${file}: schema version ${latest.id}, up to date`])
      expect(Fs.readFileSync(file).equals(bytes)).toBe(true)
      expect(Fs.readdirSync(folder).sort()).toEqual(beside)

      // The database as the release before the last migration left it: only that one is pending.
      const db = new Sqlite3(file)
      db.prepare("DELETE FROM schema_migrations WHERE id = ?").run(latest.id)
      db.close()
      const older = await cli(sqliteFile(file), ["migrate", "--check"])
      expect([older.code, older.stdout.trim().split("\n")]).toEqual([
        1,
        [`SQLite ${file}: schema version ${latest.id - 1}, 1 migration(s) pending`, `pending: ${latest.id} ${latest.name}`]
      ])

      // A database a newer release migrated is refused, as migrate and serve refuse it (a rollback).
      const newer = new Sqlite3(file)
      newer.prepare("INSERT INTO schema_migrations (id, name, applied_at) VALUES (999, 'future', 0)").run()
      newer.close()
      const refused = await cli(sqliteFile(file), ["migrate", "--check"])
      expect([refused.code, refused.stdout]).toEqual([1, ""])
      expect(refused.stderr).toMatch(/schema version 999, newer than this program knows/)
    } finally {
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 60_000)
})
