/**
 * Usage counts with two server processes on one PostgreSQL database: each instance counts what it
 * decided and flushes it every `PETSTORE_USAGE_FLUSH_SECONDS` (small here); the account's usage
 * must equal the answers the client saw, whichever instance gave them, and stay equal when both
 * stop (their last flushes add nothing twice).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, createAccount, get, request, type TestAccount } from "./support/Http.js"
import { pollUntil, type Server, start, stop } from "./support/ServerProcess.js"

const database = await TestDatabase.make()

const FLUSH_SECONDS = 0.2

type Tally = { total: number; allowed: number; rateLimited: number; quotaExceeded: number; banned: number; clientErrors: number; serverErrors: number }

const empty = (): Tally => ({ total: 0, allowed: 0, rateLimited: 0, quotaExceeded: 0, banned: 0, clientErrors: 0, serverErrors: 0 })

/** What one answer the client saw counts as. */
const see = (tally: Tally, reply: { readonly status: number; readonly body: any }) => {
  tally.total++
  if (reply.status === 429) {
    const code = reply.body.code as string
    if (code === "rate_limited") tally.rateLimited++
    else if (code === "daily_quota_exceeded") tally.quotaExceeded++
    else if (code === "key_banned") tally.banned++
    else throw new Error(`unexpected 429 ${code}`)
    return
  }
  tally.allowed++
  if (reply.status >= 500) tally.serverErrors++
  else if (reply.status >= 400) tally.clientErrors++
}

/** The account's usage summed over its buckets, as the admin API reports it (reading it counts nothing). */
const usageOf = async (base: string, account: TestAccount): Promise<Tally> => {
  const now = Date.now()
  const from = new Date(now - 2 * 3_600_000).toISOString()
  const to = new Date(now + 3_600_000).toISOString()
  const reply = await request(`${base}/admin/v1/accounts/${account.accountId}/usage?from=${from}&to=${to}`, { key: ADMIN_TOKEN })
  if (reply.status !== 200) throw new Error(`usage: ${reply.status} ${JSON.stringify(reply.body)}`)
  const sum = empty()
  for (const bucket of reply.body.buckets) for (const k of Object.keys(sum) as Array<keyof Tally>) sum[k] += bucket[k]
  return sum
}

if ("skip" in database) {
  describe.skip(`usage over two instances on PostgreSQL (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("usage over two instances on one PostgreSQL database", () => {
    let a: Server
    let b: Server
    let settings: Record<string, string>

    beforeAll(async () => {
      const url = await database.freshUrl()
      settings = {
        PETSTORE_DATABASE: url,
        PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
        PETSTORE_DATABASE_POOL_SIZE: "4",
        PETSTORE_USAGE_FLUSH_SECONDS: String(FLUSH_SECONDS)
      }
      ;[a, b] = await Promise.all([start(settings), start(settings)])
    }, 60_000)
    afterAll(() => Promise.all([stop(a), stop(b)]))

    it("after a burst of known outcomes over both instances and a flush interval, the usage equals the answers the client saw, and stays so once both stop", async () => {
      // Without Redis each instance limits on its own: 4 a minute on each.
      const account = await createAccount(a.url, { plan: "enterprise", limits: { perMinute: 4, perDay: 1_000 } })
      const seen = empty()
      const paths = ["/v1/pets", "/v1/pets/424242", "/v1/pets?limit=0", "/v1/pets", "/v1/pets", "/v1/pets", "/v1/pets"]
      await Promise.all([a, b].map(async (server) => {
        for (const path of paths) see(seen, await get(server.url, path, account.key))
      }))
      expect(seen.rateLimited).toBeGreaterThan(0)
      expect(seen.clientErrors).toBeGreaterThan(0)
      expect(seen.total).toBe(2 * paths.length)
      // Each instance flushes within FLUSH_SECONDS; wait for the counts to arrive (bounded: 100 × 100 ms).
      const arrived = await pollUntil("the usage to add up", async () => {
        const usage = await usageOf(a.url, account)
        return usage.total >= seen.total ? usage : undefined
      }, 100, 100)
      expect(arrived).toStrictEqual(seen)
      // Read through the other instance too: the same database, the same counts.
      expect(await usageOf(b.url, account)).toStrictEqual(seen)
      await Promise.all([stop(a), stop(b)])
      // A third instance reads what the two left: their last flushes on shutdown counted nothing twice.
      const reader = await start(settings)
      try {
        expect(await usageOf(reader.url, account)).toStrictEqual(seen)
      } finally {
        await stop(reader)
      }
    }, 60_000)
  })
}
