/**
 * Suspension on a running server on a SQLite file: through the server's admin API (its keys are
 * refused at once with 403 account_suspended, an Error body and no WWW-Authenticate; resumed, served
 * again), and through the CLI, another process on the same file (the server sees its commit at its
 * next look at the file, every 250 ms). Bounded polls only; the time to refusal is reported.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { ADMIN_TOKEN, createAccount, get, request } from "./support/Http.js"
import { cli, exited, pollUntil, type Server, sqliteFile, start } from "./support/ServerProcess.js"

const withServer = async (test: (server: Server, filename: string) => Promise<void>) => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-suspension-"))
  const filename = Path.join(folder, "petstore.db")
  const server = await start({ ...sqliteFile(filename), PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN })
  try {
    await test(server, filename)
  } finally {
    server.process.kill("SIGTERM")
    await exited(server.process)
    Fs.rmSync(folder, { recursive: true, force: true })
  }
  expect(server.process.exitCode).toBe(0)
}

/** What a /v1 request with `key` answers, as the test compares it. */
const answer = async (server: Server, key: string) => {
  const reply = await get(server.url, "/v1/pets?limit=1", key)
  return { status: reply.status, body: reply.body, wwwAuthenticate: reply.headers.get("www-authenticate") }
}

const REFUSED = {
  status: 403,
  body: { code: "account_suspended", message: expect.stringMatching(/suspended/), status: 403 },
  wwwAuthenticate: null
}

describe("suspension on a server on a SQLite file", () => {
  it("PATCH status suspended: the key gets 403 account_suspended (Error body, no WWW-Authenticate); PATCH active: 200", async () => {
    await withServer(async (server) => {
      const account = await createAccount(server.url)
      expect((await answer(server, account.key)).status).toBe(200)
      const setStatus = (status: string) =>
        request(`${server.url}/admin/v1/accounts/${account.accountId}`, { method: "PATCH", key: ADMIN_TOKEN, body: JSON.stringify({ status }) })

      const suspended = await setStatus("suspended")
      expect([suspended.status, suspended.body.status]).toStrictEqual([200, "suspended"])
      const reply = await answer(server, account.key)
      expect(reply).toStrictEqual(REFUSED)
      expect(Object.keys(reply.body).sort()).toStrictEqual(["code", "message", "status"])

      const resumed = await setStatus("active")
      expect([resumed.status, resumed.body.status]).toStrictEqual([200, "active"])
      expect((await answer(server, account.key)).status).toBe(200)
    })
  }, 240_000)

  it("the CLI, another process on the file, suspends and resumes: the running server follows", async () => {
    await withServer(async (server, filename) => {
      const account = await createAccount(server.url)
      expect((await answer(server, account.key)).status).toBe(200)
      const update = (status: string) => cli(sqliteFile(filename), ["accounts", "update", account.accountId, "--status", status])

      expect((await update("suspended")).code).toBe(0)
      let since = Date.now()
      await pollUntil("the server to refuse the suspended account", async () =>
        (await answer(server, account.key)).status === 403 ? true : undefined, 100, 50)
      console.log(`suspended account refused by the running server ${Date.now() - since} ms after the CLI exited`)
      expect(await answer(server, account.key)).toStrictEqual(REFUSED)

      expect((await update("active")).code).toBe(0)
      since = Date.now()
      await pollUntil("the server to serve the resumed account", async () =>
        (await answer(server, account.key)).status === 200 ? true : undefined, 100, 50)
      console.log(`resumed account served by the running server ${Date.now() - since} ms after the CLI exited`)
    })
  }, 240_000)
})
