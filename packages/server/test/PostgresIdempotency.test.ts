/**
 * `Idempotency-Key` across two real server processes on one PostgreSQL database: the database is
 * the lock, so requests with one key spread over both instances create exactly one pet, and every
 * key sent while an instance is killed (kill -9), retried afterwards, names exactly one pet or
 * message: none lost, none doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, createAccount, type Reply, request, type TestAccount } from "./support/Http.js"
import { exited, pollUntil, type Server, start, stop } from "./support/ServerProcess.js"

const database = await TestDatabase.make()

const keyed = (base: string, path: string, key: string, idempotencyKey: string, body: unknown): Promise<Reply> =>
  request(`${base}${path}`, { method: "POST", key, body: JSON.stringify(body), headers: { "idempotency-key": idempotencyKey } })

if ("skip" in database) {
  describe.skip(`Idempotency-Key on two instances (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("Idempotency-Key on two instances of one PostgreSQL database", () => {
    let url: string
    let a: Server
    let b: Server
    let account: TestAccount
    let sql: TestDatabase.Sql
    let settings: Record<string, string>

    beforeAll(async () => {
      url = await database.freshUrl()
      settings = { PETSTORE_DATABASE: url, PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN, PETSTORE_DATABASE_POOL_SIZE: "4" }
      ;[a, b] = await Promise.all([start(settings), start(settings)])
      account = await createAccount(a.url)
      sql = TestDatabase.connect(url)
    }, 60_000)
    afterAll(async () => {
      await Promise.all([stop(a), stop(b)])
      await sql.end()
    })

    it("20 concurrent requests with one key over both instances create one pet; each answer is its 201 or a 409", async () => {
      const counts = { created: 0, replayed: 0, inUse: 0 }
      for (let round = 0; round < 5; round++) {
        const key = `two-instances-${round}-${Date.now()}`
        const replies = await Promise.all(
          Array.from({ length: 20 }, (_, i) => keyed(i % 2 === 0 ? a.url : b.url, "/v1/pets", account.key, key, { name: key, categoryId: 4 }))
        )
        const rows = await sql.query<{ id: number }>("SELECT id FROM pets WHERE name = $1", [key])
        expect(rows).toHaveLength(1)
        const pet = { id: rows[0]!.id, name: key, categoryId: 4, status: "available" }
        for (const reply of replies) {
          if (reply.status === 201) {
            expect(reply.body).toStrictEqual(pet)
            expect(reply.headers.get("location")).toBe(`/v1/pets/${pet.id}`)
            if (reply.headers.get("idempotent-replayed") === "true") counts.replayed++
            else counts.created++
          } else {
            expect(reply.status, JSON.stringify(reply.body)).toBe(409)
            expect(reply.body.code).toBe("idempotency_key_in_use")
            expect(Number(reply.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
            counts.inUse++
          }
        }
        // Once settled, either instance replays it.
        for (const server of [a, b]) {
          const again = await keyed(server.url, "/v1/pets", account.key, key, { name: key, categoryId: 4 })
          expect(again.status).toBe(201)
          expect(again.body).toStrictEqual(pet)
          expect(again.headers.get("idempotent-replayed")).toBe("true")
        }
      }
      // Exactly one request per key carried the create out.
      expect(counts.created).toBe(5)
      console.log(`20 requests × 5 keys over two instances: ${JSON.stringify(counts)}`)
    }, 60_000)

    it("the same key on the other instance with another body, or on messages, is refused 422 and creates nothing", async () => {
      const key = `mismatch-${Date.now()}`
      expect((await keyed(a.url, "/v1/pets", account.key, key, { name: key, categoryId: 1 })).status).toBe(201)
      const other = await keyed(b.url, "/v1/pets", account.key, key, { name: key, categoryId: 2 })
      expect(other.status).toBe(422)
      expect(other.body.code).toBe("idempotency_key_reused")
      expect((await keyed(b.url, "/v1/messages", account.key, key, { message: key })).body.code).toBe("idempotency_key_reused")
      expect(await sql.query("SELECT id FROM pets WHERE name = $1", [key])).toHaveLength(1)
      expect(await sql.query("SELECT id FROM messages WHERE message = $1", [key])).toHaveLength(0)
    })

    it("keyed creates under kill -9, then every key retried: exactly one pet or message per key, none lost", async () => {
      const sent: Array<{ key: string; path: "/v1/pets" | "/v1/messages" }> = []
      const acked = new Map<string, string>()
      let running = true
      const stamp = Date.now()
      const load = Promise.all([0, 1, 2, 3, 4, 5].map(async (n) => {
        for (let i = 0; running; i++) {
          const key = `kill9-${stamp}-${n}-${i}`
          const path = n % 3 === 2 ? "/v1/messages" : "/v1/pets"
          const body = path === "/v1/pets" ? { name: key, categoryId: 6 } : { message: key }
          sent.push({ key, path })
          try {
            const reply = await keyed(b.url, path, account.key, key, body)
            if (reply.status === 201 || reply.status === 202) acked.set(key, String(reply.body.id))
            else if (running) throw new Error(`a keyed create answered ${reply.status} before the kill: ${JSON.stringify(reply.body)}`)
          } catch (error) {
            // Only once the process is killed may a request fail: its connection died with it.
            if (running) throw error
            return
          }
        }
      }))
      await pollUntil("some acknowledgements", () => (acked.size >= 150 ? true : undefined), 400, 25)
      b.process.kill("SIGKILL")
      running = false
      await exited(b.process)
      await load
      // Every key again, on the surviving instance: each names one pet or message, the acknowledged one if any.
      for (const { key, path } of sent) {
        const body = path === "/v1/pets" ? { name: key, categoryId: 6 } : { message: key }
        const reply = await keyed(a.url, path, account.key, key, body)
        expect(reply.status, `${key}: ${JSON.stringify(reply.body)}`).toBe(path === "/v1/pets" ? 201 : 202)
        const ackedId = acked.get(key)
        if (ackedId !== undefined) {
          expect(String(reply.body.id)).toBe(ackedId)
          expect(reply.headers.get("idempotent-replayed")).toBe("true")
        }
      }
      const pets = await sql.query<{ name: string; n: number }>(
        "SELECT name, count(*)::int AS n FROM pets WHERE name LIKE $1 GROUP BY name",
        [`kill9-${stamp}-%`]
      )
      const messages = await sql.query<{ message: string; n: number }>(
        "SELECT message, count(*)::int AS n FROM messages WHERE message LIKE $1 GROUP BY message",
        [`kill9-${stamp}-%`]
      )
      const petKeys = sent.filter((s) => s.path === "/v1/pets").map((s) => s.key).sort()
      const messageKeys = sent.filter((s) => s.path === "/v1/messages").map((s) => s.key).sort()
      expect(pets.map((r) => r.name).sort()).toStrictEqual(petKeys)
      expect(pets.every((r) => r.n === 1)).toBe(true)
      expect(messages.map((r) => r.message).sort()).toStrictEqual(messageKeys)
      expect(messages.every((r) => r.n === 1)).toBe(true)
      console.log(`kill -9: ${sent.length} keys sent, ${acked.size} acknowledged before the kill, each retried: one resource per key`)
    }, 90_000)
  })
}
