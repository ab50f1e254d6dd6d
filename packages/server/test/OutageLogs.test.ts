/**
 * What a real server process logs during a short PostgreSQL outage (a TCP proxy the test cuts and
 * restores): one warning when the store stops answering, one line when it is back that says how long
 * it took and how many requests were refused, and per request only its access line (status 503).
 * No stack trace: an outage is expected, not a defect.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, createAccount, get, post, type TestAccount } from "./support/Http.js"
import { pollUntil, type Server, start, stop } from "./support/ServerProcess.js"
import * as TcpProxy from "./support/TcpProxy.js"

const database = await TestDatabase.make()

/** The lines of `text` that are not access lines, and the access lines, of a JSON log stream. */
const split = (text: string) => {
  const lines = text.split("\n").filter((line) => line.trim() !== "")
  const isAccess = (line: string) => /"status":\s*\d{3}/.test(line) && /"(method|route)"/.test(line)
  return { access: lines.filter(isAccess), other: lines.filter((line) => !isAccess(line)) }
}

if ("skip" in database) {
  describe.skip(`outage logs (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("the log of a PostgreSQL outage", () => {
    let proxy: TcpProxy.TcpProxy
    let server: Server
    let account: TestAccount

    beforeAll(async () => {
      const direct = await database.freshUrl()
      proxy = await TcpProxy.before(direct, 5432)
      server = await start({
        PETSTORE_DATABASE: TcpProxy.through(direct, proxy),
        PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
        PETSTORE_DATABASE_TIMEOUT_MS: "300",
        PETSTORE_LOG_FORMAT: "json",
        PETSTORE_ACCESS_LOG: "true"
      })
      account = await createAccount(server.url)
    }, 60_000)
    afterAll(async () => {
      await stop(server)
      await proxy.close()
    })

    it("is one warning, one line when back (duration, requests refused), and an access line per request; no stack", async () => {
      expect((await post(server.url, "/v1/pets", account.key, { name: "before", categoryId: 1 })).status).toBe(201)
      const from = server.stdout().length
      await proxy.cut()
      let refused = 0
      for (let round = 0; round < 10; round++) {
        const replies = await Promise.all([
          post(server.url, "/v1/pets", account.key, { name: `during ${round}`, categoryId: 1 }),
          post(server.url, "/v1/messages", account.key, { message: `during ${round}` }),
          get(server.url, `/v1/pets/${100_000 + round}`, account.key)
        ])
        for (const reply of replies) {
          expect(reply.status).toBe(503)
          refused++
        }
      }
      await proxy.restore()
      // Nothing is sent until the server says the store is back: it notices that by itself.
      const back = await pollUntil("the line saying the store is back", () => {
        const line = split(server.stdout().slice(from)).other.find((l) => /again after/.test(l))
        return line
      }, 400, 50)
      const window = server.stdout().slice(from)
      const { access, other } = split(window)
      console.log(`outage log: ${other.length} lines besides ${access.length} access lines for ${refused} refused requests:\n${other.join("\n")}`)

      const warnings = other.filter((line) => /not ready/.test(line))
      expect(warnings).toHaveLength(1)
      expect(JSON.parse(warnings[0]!).level).toBe(40) // pino's warn
      expect(warnings[0]).toContain("the store (PostgreSQL) cannot be reached")
      expect(back).toMatch(new RegExp(`again after \\d+\\.\\d s; ${refused} requests refused meanwhile`))
      expect(other).toHaveLength(2)
      expect(access.filter((line) => /"status":\s*503/.test(line))).toHaveLength(refused)
      expect(window).not.toMatch(/\bat .+:\d+:\d+\)?/) // no stack frame anywhere
      expect(window).not.toMatch(/"level":\s*(50|60)\b/) // no error or fatal line

      expect((await post(server.url, "/v1/pets", account.key, { name: "after", categoryId: 1 })).status).toBe(201)
    }, 60_000)
  })
}
