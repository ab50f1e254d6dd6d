/**
 * Two real server processes on one PostgreSQL database and one Redis: the plan's limits hold for
 * the pair as for one server. A burst split over both admits at most the plan's number plus what
 * refilled during it; the daily quota admits exactly its number; a refused request consumes
 * nothing; both tell the same story in their headers; a ban earned on one holds on the other.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import * as TestRedis from "../../redis/test/support/TestRedis.js"
import { ADMIN_TOKEN, createAccount, get, type Reply } from "./support/Http.js"
import { type Server, start, stop } from "./support/ServerProcess.js"

const database = await TestDatabase.make()
const redis = await TestRedis.make()

const skip = "skip" in database ? database.skip : "skip" in redis ? redis.skip : undefined

const headersOf = (reply: Reply) => ({
  limit: reply.headers.get("x-ratelimit-limit"),
  remaining: reply.headers.get("x-ratelimit-remaining"),
  reset: reply.headers.get("x-ratelimit-reset"),
  policy: reply.headers.get("ratelimit-policy"),
  state: reply.headers.get("ratelimit"),
  retryAfter: reply.headers.get("retry-after")
})

if (skip !== undefined || "skip" in database || "skip" in redis) {
  describe.skip(`two instances sharing PostgreSQL and Redis (${skip})`, () => it("skipped", () => {}))
} else {
  describe("two instances sharing PostgreSQL and Redis", () => {
    let a: Server | undefined
    let b: Server | undefined

    beforeAll(async () => {
      const settings = {
        PETSTORE_DATABASE: await database.freshUrl(),
        PETSTORE_REDIS_URL: redis.url,
        PETSTORE_REDIS_PREFIX: redis.freshPrefix(),
        PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
        PETSTORE_DATABASE_POOL_SIZE: "4"
      }
      ;[a, b] = await Promise.all([start(settings), start(settings)])
    }, 60_000)
    afterAll(async () => {
      await Promise.all([stop(a), stop(b)])
    })

    it("a burst split over both instances admits the plan's number plus what refilled during it, and no more", async () => {
      const perMinute = 20
      const account = await createAccount(a!.url, { plan: "enterprise", limits: { perMinute, perDay: 10_000 } })
      const started = Date.now()
      const replies = await Promise.all(
        Array.from({ length: 60 }, (_, i) => get(i % 2 === 0 ? a!.url : b!.url, "/v1/pets?limit=1", account.key))
      )
      const seconds = (Date.now() - started) / 1000
      const admitted = replies.filter((r) => r.status === 200).length
      expect(admitted).toBeGreaterThanOrEqual(perMinute)
      expect(admitted).toBeLessThanOrEqual(perMinute + Math.ceil((perMinute / 60) * seconds))
      for (const r of replies) expect([200, 429]).toContain(r.status)
    })

    it("the daily quota admits exactly its number across both, and a refused request consumes nothing", async () => {
      const perDay = 7
      const account = await createAccount(a!.url, { plan: "enterprise", limits: { perMinute: 1_000, perDay } })
      const replies: Array<Reply> = []
      for (let i = 0; i < 12; i++) replies.push(await get(i % 2 === 0 ? a!.url : b!.url, "/v1/pets?limit=1", account.key))
      expect(replies.map((r) => r.status)).toStrictEqual([...Array(perDay).fill(200), ...Array(12 - perDay).fill(429)])
      for (const r of replies.slice(perDay)) expect(r.body.code).toBe("daily_quota_exceeded")
      // Remaining counts down across both instances as one.
      expect(replies.slice(0, perDay).map((r) => Number(r.headers.get("x-ratelimit-remaining")))).toStrictEqual([6, 5, 4, 3, 2, 1, 0])
    })

    it("both instances tell the same story: the same rate-limit headers for the same state", async () => {
      // Three requests a minute: a token comes back only after 20 s, however slowly this machine runs.
      const account = await createAccount(a!.url, { plan: "enterprise", limits: { perMinute: 3, perDay: 1_000 } })
      for (let i = 0; i < 3; i++) expect((await get(i % 2 === 0 ? a!.url : b!.url, "/v1/pets?limit=1", account.key)).status).toBe(200)
      const [fromA, fromB] = [await get(a!.url, "/v1/pets?limit=1", account.key), await get(b!.url, "/v1/pets?limit=1", account.key)]
      expect(fromA.status).toBe(429)
      expect(fromB.status).toBe(429)
      const [ha, hb] = [headersOf(fromA), headersOf(fromB)]
      expect(ha.limit).toBe("3")
      expect(hb.limit).toBe("3")
      expect(ha.remaining).toBe("0")
      expect(hb.remaining).toBe("0")
      expect(ha.policy).toBe(hb.policy)
      // Reset times are absolute (Redis's clock): equal, or a second apart if the two fell on either side of one.
      expect(Math.abs(Number(ha.reset) - Number(hb.reset))).toBeLessThanOrEqual(1)
      expect(Number(ha.retryAfter)).toBeGreaterThanOrEqual(1)
      expect(Number(hb.retryAfter)).toBeGreaterThanOrEqual(1)
    })

    it("a ban earned on one instance holds on the other", async () => {
      const account = await createAccount(a!.url, { plan: "enterprise", limits: { perMinute: 1, perDay: 1_000 } })
      expect((await get(a!.url, "/v1/pets?limit=1", account.key)).status).toBe(200)
      expect((await get(a!.url, "/v1/pets?limit=1", account.key)).body.code).toBe("rate_limited")
      // Keeps sending on instance a while told to wait, after the grace (250 ms) that follows the
      // refusal: more than 10 strikes earn a ban. The wait is a minute long.
      await new Promise((resolve) => setTimeout(resolve, 300))
      let last: Reply | undefined
      for (let i = 0; i < 11; i++) last = await get(a!.url, "/v1/pets?limit=1", account.key)
      expect(last!.body.code).toBe("key_banned")
      const onB = await get(b!.url, "/v1/pets?limit=1", account.key)
      expect(onB.status).toBe(429)
      expect(onB.body.code).toBe("key_banned")
      expect(Number(onB.headers.get("retry-after"))).toBeGreaterThan(800)
    })
  })
}
