/**
 * `/metrics` on PostgreSQL: batched inserts recorded as group-commit batches, the queue's depth read
 * from the shared messages table, store calls measured by operation.
 */
import { afterEach, describe, expect, it } from "vitest"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, createAccount, get, post } from "./support/Http.js"
import { config, type InProcessServer, start } from "./support/InProcessServer.js"
import { parse, value } from "./support/Prometheus.js"

const database = await TestDatabase.make()

const servers: Array<InProcessServer> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

const scrape = async (base: string) => {
  const reply = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  expect(reply.status).toBe(200)
  return parse(await reply.text())
}

if ("skip" in database) {
  describe.skip(`metrics on PostgreSQL (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("metrics on PostgreSQL", () => {
    it("records each batched insert's size, the queue's depth and the store calls", async () => {
      const url = await database.freshUrl()
      const server = await start(await config({ PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN, PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: url }))
      servers.push(server)
      const account = await createAccount(server.url)
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post(server.url, "/v1/pets", account.key, { name: `pet ${i}`, categoryId: 1 }))
      )
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 201))
      const { id } = (await post(server.url, "/v1/messages", account.key, { message: "hello" })).body
      while ((await get(server.url, `/v1/messages/${id}`, account.key)).body.status !== "delivered") {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      const samples = await scrape(server.url)
      // 20 pets and 1 message went through the batchers: in at least one batch, at most 21.
      const batches = value(samples, "petstore_group_commit_batch_size_count")
      expect(value(samples, "petstore_group_commit_batch_size_sum")).toBe(21)
      expect(batches).toBeGreaterThanOrEqual(2)
      expect(batches).toBeLessThanOrEqual(21)
      expect(value(samples, "petstore_message_queue_depth", { state: "queued" })).toBe(0)
      expect(value(samples, "petstore_message_queue_depth", { state: "processing" })).toBe(0)
      expect(value(samples, "petstore_message_deliveries_total", { outcome: "delivered" })).toBe(1)
      expect(value(samples, "petstore_store_operation_duration_seconds_count", { store: "PetRepository", operation: "insert" })).toBe(20)
      expect(value(samples, "petstore_store_errors_total", { store: "PetRepository", operation: "insert" })).toBe(0)
    })
  })
}
