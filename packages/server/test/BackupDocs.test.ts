/**
 * The SQLite backup commands of docs/storage.md, run as written (each ```sh block of the section) in
 * the folder of a running server, while it serves: each writes a consistent copy holding every
 * acknowledged pet.
 */
import Database from "better-sqlite3"
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, createAccount, post } from "./support/Http.js"
import * as ServerProcess from "./support/ServerProcess.js"

const ROOT = Path.resolve(import.meta.dirname, "../../..")
const STORAGE = Fs.readFileSync(Path.join(ROOT, "docs/storage.md"), "utf8")

/** The shell blocks of the first "### Backups" section (SQLite's), in order. */
const backupCommands = (): ReadonlyArray<string> => {
  const start = STORAGE.indexOf("### Backups")
  const section = STORAGE.slice(start, STORAGE.indexOf("\n### ", start + 1))
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/^ {2}/gm, ""))
}

const hasSqlite3 = (() => {
  try {
    execFileSync("sqlite3", ["-version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()
const skip = hasSqlite3 || process.env.CI === "true" ? undefined : "the sqlite3 command is not installed (apt-get install sqlite3)"

describe.skipIf(skip !== undefined)(`docs/storage.md's SQLite backup commands${skip ? ` (${skip})` : ""}`, () => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-backup-docs-"))
  let server: ServerProcess.Server | undefined
  afterAll(async () => {
    await ServerProcess.stop(server)
    Fs.rmSync(folder, { recursive: true, force: true })
  })

  it("each works as written while the server runs, and its copy holds every acknowledged pet", async () => {
    const commands = backupCommands()
    expect(commands.length).toBe(3)
    server = await ServerProcess.start({ ...ServerProcess.sqliteFile(Path.join(folder, "data/petstore.db")), PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN })
    const account = await createAccount(server.url)
    const names = ["Rex", "Tom", "Kiki"]
    for (const name of names) expect((await post(server.url, "/v1/pets", account.key, { name, categoryId: 1 })).status).toBe(201)

    for (const command of commands) {
      const before = new Set(Fs.existsSync(Path.join(folder, "backup")) ? Fs.readdirSync(Path.join(folder, "backup")) : [])
      execFileSync("bash", ["-euo", "pipefail", "-c", command], {
        cwd: folder,
        env: { ...process.env, NODE_PATH: Path.join(ROOT, "packages/sqlite/node_modules") },
        stdio: ["ignore", "pipe", "pipe"]
      })
      const written = Fs.readdirSync(Path.join(folder, "backup")).filter((f) => !before.has(f) || command.includes(f))
      expect(written.length, command).toBeGreaterThan(0)
      for (const file of written) {
        const copy = new Database(Path.join(folder, "backup", file), { readonly: true })
        try {
          expect(copy.prepare("PRAGMA integrity_check").pluck().get(), command).toBe("ok")
          expect(copy.prepare("SELECT name FROM pets ORDER BY id").pluck().all(), command).toEqual(names)
        } finally {
          copy.close()
        }
      }
    }
  })
})
