/**
 * One server per SQLite file, with real processes: a second `petstore serve` on a file a running
 * server uses refuses to start, in a sentence that names the process holding it; the command line
 * still works on that file beside the server; and a server killed with SIGKILL leaves the file free
 * (the lock is the operating system's, and dies with its holder).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { cli, exited, sqliteFile, start, stop } from "./support/ServerProcess.js"

describe("one server per SQLite file", () => {
  it("a second server refuses the file and names the holder; after kill -9 of the holder, a new server starts on it", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-one-server-"))
    const filename = Path.join(folder, "petstore.db")
    const first = await start(sqliteFile(filename))
    let third: Awaited<ReturnType<typeof start>> | undefined
    try {
      const pid = first.process.pid!
      const refused = await start(sqliteFile(filename)).then(
        (second) => ({ started: second }),
        (error: unknown) => ({ error: String(error) })
      )
      if ("started" in refused) {
        await stop(refused.started)
        throw new Error("a second server started on a file another server serves")
      }
      expect(refused.error).toMatch(/server exited with [1-9]/)
      expect(refused.error).toContain(`is already served by process ${pid} (`)
      expect(refused.error).toContain(`${filename}.lock`)
      expect(refused.error).not.toMatch(/\n\s+at /) // a sentence, no stack trace

      // The command line is no server: it works on the served file.
      const created = await cli(sqliteFile(filename), ["accounts", "create", "--plan", "free"])
      expect(created.code).toBe(0)

      first.process.kill("SIGKILL")
      await exited(first.process)
      third = await start(sqliteFile(filename))
      expect((await fetch(`${third.url.replace(/\/v1$/, "")}/readyz`)).status).toBe(200)
    } finally {
      await stop(first)
      await stop(third)
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 120_000)
})
