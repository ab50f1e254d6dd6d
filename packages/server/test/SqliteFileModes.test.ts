/**
 * The SQLite files a real server process creates are its user's only (folder 0700; database,
 * `-wal` and `-shm` 0600), and files that exist already keep their modes, with a warning in the log
 * when other users can read them.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { type Server, sqliteFile, start, stop } from "./support/ServerProcess.js"

const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-modes-"))
const servers: Array<Server> = []
afterAll(async () => {
  await Promise.all(servers.map(stop))
  Fs.rmSync(root, { recursive: true, force: true })
})

const modeOf = (path: string) => Fs.statSync(path).mode & 0o777
const serve = async (filename: string) => {
  const server = await start(sqliteFile(filename))
  servers.push(server)
  return server
}
const WARNING = /database files readable by other users/

describe("SQLite file modes", () => {
  it("a new database: its folders 0700, the database, -wal and -shm 0600, and no warning", async () => {
    const folder = Path.join(root, "fresh", "data")
    const filename = Path.join(folder, "petstore.db")
    const server = await serve(filename)
    // The server answers, so its migrations have written through the WAL: all three files exist.
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
    expect(modeOf(Path.join(root, "fresh"))).toBe(0o700)
    expect(modeOf(folder)).toBe(0o700)
    for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) expect([file, modeOf(file)]).toEqual([file, 0o600])
    expect(server.output()).not.toMatch(WARNING)
  })

  it("an existing database readable by others is left as it is, and the log says so (without changing a mode)", async () => {
    const folder = Path.join(root, "existing")
    Fs.mkdirSync(folder, { mode: 0o755 })
    Fs.chmodSync(folder, 0o755)
    const filename = Path.join(folder, "petstore.db")
    Fs.writeFileSync(filename, "")
    Fs.chmodSync(filename, 0o644)
    const server = await serve(filename)
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
    const warning = server.output().split("\n").find((line) => WARNING.test(line))
    expect(warning, server.output()).toBeDefined()
    expect(warning).toContain(JSON.stringify(filename).slice(1, -1))
    expect(warning).toContain("0644")
    expect(modeOf(folder)).toBe(0o755)
    expect(modeOf(filename)).toBe(0o644)
  })

  it("an existing private database gets no warning", async () => {
    const folder = Path.join(root, "private")
    Fs.mkdirSync(folder, { mode: 0o700 })
    const filename = Path.join(folder, "petstore.db")
    Fs.writeFileSync(filename, "", { mode: 0o600 })
    const server = await serve(filename)
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
    expect(server.output()).not.toMatch(WARNING)
    for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) expect([file, modeOf(file)]).toEqual([file, 0o600])
  })
})
