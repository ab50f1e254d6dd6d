/**
 * The limiter on a Redis Cluster of the test's own (three masters, support/RedisCluster), shared by
 * two server processes on one PostgreSQL database, failing closed (`PETSTORE_REDIS_FAILURE=closed`)
 * so that any call the cluster client could not complete would show as a 503. Every key of a
 * decision hashes to one slot; the account's slot is resharded to another node between requests
 * (the instances' slot maps are then stale: MOVED): every request is answered 200, and the daily
 * quota stays exact across both instances. Requests sent while a slot is migrating (ASK, TRYAGAIN
 * for a script whose keys are split) are not asserted here: see docs/scale-out.md.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import * as RedisCluster from "../../redis/test/support/RedisCluster.js"
import * as RedisProcess from "../../redis/test/support/RedisProcess.js"
import { ADMIN_TOKEN, createAccount, get } from "./support/Http.js"
import { type Server, start, stop } from "./support/ServerProcess.js"

const canRun = RedisProcess.availableOrFail()
const database = await TestDatabase.make()

describe.skipIf(!canRun || "skip" in database)("the limiter on a Redis Cluster, resharded while serving", () => {
  let cluster: RedisCluster.RedisCluster
  let servers: ReadonlyArray<Server> = []

  beforeAll(async () => {
    if ("skip" in database) return
    cluster = await RedisCluster.start()
    const settings = {
      PETSTORE_DATABASE: await database.freshUrl(),
      PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
      PETSTORE_REDIS_URL: cluster.url,
      PETSTORE_REDIS_CLUSTER: "true",
      PETSTORE_REDIS_FAILURE: "closed"
    }
    const first = await start(settings)
    servers = [first, await start(settings)]
  }, 120_000)
  afterAll(async () => {
    await Promise.all(servers.map(stop))
    cluster?.stop()
  })

  it("every key of a decision in one slot; MOVED followed: every request 200, the daily quota exact", async () => {
    const perDay = 40
    const account = await createAccount(servers[0]!.url, { plan: "enterprise", limits: { perMinute: 1_000, perDay } })
    const usage = `petstore:{a:${account.accountId}}:usage`
    const slot = cluster.keySlot(usage)
    expect(cluster.keySlot(`petstore:{a:${account.accountId}}:ban:${account.keyId}`)).toBe(slot)

    let sent = 0
    const burst = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const reply = await get(servers[sent++ % 2]!.url, "/v1/pets?limit=1", account.key)
        expect(reply.status).toBe(200)
      }
    }
    await burst(5)
    const from = cluster.ownerOf(slot)
    const to = cluster.ports.find((p) => p !== from)!
    // Resharded between two requests (as `redis-cli --cluster reshard` moves a slot).
    await cluster.moveSlot(slot, to, async () => {})
    expect(cluster.ownerOf(slot)).toBe(to)
    await burst(5) // the clients' slot maps are stale: MOVED
    // Exact across both instances: what is left of the quota, then 429.
    await burst(perDay - sent)
    const over = await get(servers[0]!.url, "/v1/pets?limit=1", account.key)
    expect(over.status).toBe(429)
    expect(over.body.code).toBe("daily_quota_exceeded")
    for (const server of servers) expect(server.output()).not.toMatch(/limiting in this process's memory/)
  }, 120_000)
})
