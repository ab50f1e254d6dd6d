/**
 * A Redis outage seen by a real server process (on SQLite; the store does not matter here). By
 * default every request is still answered, limited in the process's memory, and the limits are
 * shared again after Redis's return, without a restart. With `PETSTORE_REDIS_FAILURE=closed` the
 * requests answer 503 `unavailable` while Redis is away. How long an answer may wait for Redis is the
 * client's call deadline (packages/redis); these tests assert outcomes, not durations.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as RedisProcess from "../../redis/test/support/RedisProcess.js"
import * as TestRedis from "../../redis/test/support/TestRedis.js"
import { ADMIN_TOKEN, createAccount, get } from "./support/Http.js"
import { pollUntil, sqliteFile, start, stop } from "./support/ServerProcess.js"

const canRun = RedisProcess.availableOrFail()

const withServer = async (failure: "open" | "closed", body: (url: string, redis: RedisProcess.RedisProcess) => Promise<void>) => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-redis-outage-"))
  const redis = await RedisProcess.start()
  const server = await start({
    ...sqliteFile(Path.join(folder, "petstore.db")),
    PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
    PETSTORE_REDIS_URL: redis.url,
    PETSTORE_REDIS_FAILURE: failure
  })
  try {
    await body(server.url, redis)
  } finally {
    await stop(server)
    await redis.stop()
    Fs.rmSync(folder, { recursive: true, force: true })
  }
}

describe.skipIf(!canRun)("a Redis outage (redis-server of the test's own)", () => {
  it("answers every request while Redis is away, and shares the limits again once it is back", () =>
    withServer("open", async (url, redis) => {
      const account = await createAccount(url)
      expect((await get(url, "/v1/pets?limit=1", account.key)).status).toBe(200)
      await redis.stop()
      for (let i = 0; i < 10; i++) {
        const reply = await get(url, "/v1/pets?limit=1", account.key)
        expect(reply.status).toBe(200)
        expect(reply.headers.get("x-ratelimit-remaining")).not.toBeNull()
      }
      await redis.start()
      const client = await TestRedis.connect(redis.url)
      try {
        await pollUntil("the limits to be shared again", async () => {
          await get(url, "/v1/pets?limit=1", account.key)
          return (await client.keys("petstore:{a:*}:usage")).length > 0 ? true : undefined
        }, 100, 50)
      } finally {
        await client.close()
      }
    }), 60_000)

  it("with PETSTORE_REDIS_FAILURE=closed answers 503 unavailable while Redis is away, then serves again", () =>
    withServer("closed", async (url, redis) => {
      const account = await createAccount(url)
      expect((await get(url, "/v1/pets?limit=1", account.key)).status).toBe(200)
      await redis.stop()
      const refused = await get(url, "/v1/pets?limit=1", account.key)
      expect(refused.status).toBe(503)
      expect(refused.body).toMatchObject({ code: "unavailable", status: 503 })
      await redis.start()
      await pollUntil("the server to serve again", async () => ((await get(url, "/v1/pets?limit=1", account.key)).status === 200 ? true : undefined), 100, 50)
    }), 60_000)
})
