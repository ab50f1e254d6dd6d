/**
 * A PostgreSQL outage seen by a real server process: while the database cannot be reached,
 * requests that need it answer 503 `unavailable` Error bodies within 5 s (never a 500, never a hung
 * request); nothing is half-written; once PostgreSQL accepts connections again the same process
 * serves again within 5 s, without a restart. The outage is a TCP proxy between the server and
 * PostgreSQL that the test cuts and restores.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, createAccount, get, post, type TestAccount } from "./support/Http.js"
import { pollUntil, type Server, start, stop } from "./support/ServerProcess.js"
import * as TcpProxy from "./support/TcpProxy.js"

const database = await TestDatabase.make()

/** The outage bound the documentation publishes, with a margin for this machine's scheduling. */
const BOUND_MS = 5_000

if ("skip" in database) {
  describe.skip(`PostgreSQL outage (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("a PostgreSQL outage", () => {
    let proxy: TcpProxy.TcpProxy
    let server: Server
    let account: TestAccount
    let sql: TestDatabase.Sql

    beforeAll(async () => {
      const direct = new URL(await database.freshUrl())
      proxy = await TcpProxy.start(direct.hostname, Number(direct.port || 5432))
      const through = new URL(direct)
      through.hostname = "127.0.0.1"
      through.port = String(proxy.port)
      server = await start({ PETSTORE_DATABASE: through.toString(), PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN })
      account = await createAccount(server.url)
      sql = TestDatabase.connect(direct.toString())
    }, 60_000)
    afterAll(async () => {
      await stop(server)
      await proxy.close()
      await sql.end()
    })

    it("answers 503 unavailable within 5 s while PostgreSQL is away, and serves again within 5 s of its return", async () => {
      const before = await post(server.url, "/v1/pets", account.key, { name: "before", categoryId: 1 })
      expect(before.status).toBe(201)

      await proxy.cut()
      const attempted: Array<string> = []
      // Writes, uncached reads, and (once the key cache entry is older than its bound) key checks all need the store.
      for (let i = 0; i < 6; i++) {
        const started = Date.now()
        const name = `during ${i}`
        attempted.push(name)
        const replies = await Promise.all([
          post(server.url, "/v1/pets", account.key, { name, categoryId: 1 }),
          post(server.url, "/v1/messages", account.key, { message: name }),
          get(server.url, `/v1/pets/${before.body.id + 1000 + i}`, account.key)
        ])
        for (const reply of replies) {
          expect(reply.status).toBe(503)
          expect(reply.headers.get("content-type")).toMatch(/^application\/json/)
          expect(reply.body).toMatchObject({ code: "unavailable", status: 503 })
          expect(typeof reply.body.message).toBe("string")
        }
        expect(Date.now() - started).toBeLessThanOrEqual(BOUND_MS)
      }

      await proxy.restore()
      const restoredAt = Date.now()
      const after = await pollUntil("the server to serve again", async () => {
        const reply = await post(server.url, "/v1/pets", account.key, { name: "after", categoryId: 1 })
        return reply.status === 201 ? reply : undefined
      }, 100, 50)
      expect(Date.now() - restoredAt).toBeLessThanOrEqual(BOUND_MS)
      expect((await get(server.url, `/v1/pets/${after.body.id}`, account.key)).status).toBe(200)

      // Nothing half-written: each pet the outage refused is there whole or not at all, never twice.
      const rows = await sql.query<{ name: string; category_id: string; status: string }>(
        "SELECT name, category_id::text, status FROM pets WHERE name = ANY($1)",
        [attempted]
      )
      expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length)
      for (const row of rows) expect(row).toStrictEqual({ name: row.name, category_id: "1", status: "available" })
    }, 60_000)
  })
}
