/**
 * The CLI on the database file of a running server: accounts and keys it creates work on the server
 * at once, and a key it revokes is refused by the server shortly after (the server looks for other
 * processes' commits every 250 ms). Bounded polls only; the time to refusal is reported, not judged.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { cli, exited, pollUntil, sqliteFile, start } from "./support/ServerProcess.js"

const field = (output: string, label: string) => {
  const value = new RegExp(`^${label}: (\\S+)$`, "m").exec(output)?.[1]
  if (value === undefined) throw new Error(`no "${label}" in:\n${output}`)
  return value
}

describe("CLI while the server runs on the same file", () => {
  it("accounts create and keys create|list|revoke act on the running server", async () => {
    const filename = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-cli-")), "petstore.db")
    const server = await start(sqliteFile(filename))
    try {
      const status = async (key: string) =>
        (await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status

      const created = await cli(sqliteFile(filename), ["accounts", "create", "--plan", "pro"])
      expect(created.code).toBe(0)
      const account = field(created.stdout, "account")
      const firstKey = field(created.stdout, "key")
      expect(await status(firstKey)).toBe(200)

      const issued = await cli(sqliteFile(filename), ["keys", "create", "--account", account])
      expect(issued.code).toBe(0)
      const secondId = field(issued.stdout, "key id")
      const secondKey = field(issued.stdout, "key")
      expect(await status(secondKey)).toBe(200)

      const listed = await cli(sqliteFile(filename), ["keys", "list", "--account", account])
      expect(listed.code).toBe(0)
      expect(listed.stdout).toContain(secondId)
      expect(listed.stdout).not.toContain(secondKey)

      const revoked = await cli(sqliteFile(filename), ["keys", "revoke", secondId])
      expect(revoked.code).toBe(0)
      const since = Date.now()
      await pollUntil("the server to refuse the revoked key", async () => ((await status(secondKey)) === 401 ? true : undefined), 100, 50)
      console.log(`revoked key refused by the running server ${Date.now() - since} ms after the CLI exited`)
      // The account's other key is untouched.
      expect(await status(firstKey)).toBe(200)
    } finally {
      server.process.kill("SIGTERM")
      await exited(server.process)
    }
    expect(server.process.exitCode).toBe(0)
  }, 240_000)
})
