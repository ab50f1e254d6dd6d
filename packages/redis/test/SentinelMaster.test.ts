/**
 * The limiter behind Redis Sentinel (support/RedisSentinel: a master, a replica, three sentinels),
 * failing closed so that any decision it could not make on Redis is an error: the sentinels are
 * needed to find the master, not to use it (all of them stopped, decisions go on); an instance
 * started while no sentinel answers finds the master once one does; calls in flight while the
 * follower moves to a new master are answered, none dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { RateLimiter } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { execFileSync } from "node:child_process"
import { RateLimiterRedis, SentinelMaster } from "@petstore/redis"
import * as RedisProcess from "./support/RedisProcess.js"
import * as RedisSentinel from "./support/RedisSentinel.js"

const canRun = RedisProcess.availableOrFail() && RedisSentinel.availableOrFail()
const subject = { accountId: "acc_sentinel", keyId: "key_sentinel", limits: { perMinute: 1_000_000, perDay: 100_000_000 } }

describe.skipIf(!canRun)("the limiter behind Redis Sentinel", () => {
  let sentinel: RedisSentinel.RedisSentinel
  beforeAll(async () => {
    sentinel = await RedisSentinel.start()
  })
  afterAll(() => sentinel?.stop())

  const limiter = () =>
    RateLimiterRedis.layer({
      url: "",
      sentinel: { nodes: sentinel.sentinels.map((s) => ({ host: "127.0.0.1", port: Number(s.split(":")[1]) })), name: sentinel.name },
      failure: "closed",
      prefix: `sentinel-test:${Math.random().toString(36).slice(2)}:`
    })
  const admit = Effect.flatMap(RateLimiter.RateLimiter, (l) => l.admit(subject))

  it.scoped("an instance started while no sentinel answers finds the master once one does", () =>
    Effect.gen(function*() {
      sentinel.pauseSentinels(true)
      const context = yield* Layer.build(limiter())
      const decide = Effect.provide(admit, context)
      // Not one decision while the master is unknown: 503 (failing closed), not a wait.
      expect(Exit.isFailure(yield* Effect.exit(decide))).toBe(true)
      sentinel.pauseSentinels(false)
      let decided = false
      for (let i = 0; i < 300 && !decided; i++) {
        decided = Exit.isSuccess(yield* Effect.exit(decide))
        if (!decided) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
      }
      expect(decided).toBe(true)
    }), 20_000)

  it.scoped("decisions go on while every sentinel is stopped (the master answers)", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(limiter())
      const decide = Effect.provide(admit, context)
      expect((yield* decide).verdict).toBe("allowed")
      sentinel.pauseSentinels(true)
      try {
        // Longer than the follower's periodic question to the sentinels (every second).
        const until = Date.now() + 1_500
        let n = 0
        while (Date.now() < until) {
          expect((yield* decide).verdict).toBe("allowed")
          n++
        }
        expect(n).toBeGreaterThan(10)
      } finally {
        sentinel.pauseSentinels(false)
      }
    }), 20_000)

  it("calls in flight when the follower moves to the new master are answered (by the old one or sent again), none dropped", async () => {
    const follower = SentinelMaster.follow({
      nodes: sentinel.sentinels.map((s) => ({ host: "127.0.0.1", port: Number(s.split(":")[1]) })),
      name: sentinel.name,
      socket: { connectTimeout: 1_000, reconnectStrategy: () => 50 },
      askTimeoutMillis: 250,
      checkEveryMillis: 100
    })
    await follower.connect()
    const key = `sentinel-test:${Math.random().toString(36).slice(2)}:count`
    const failures: Array<string> = []
    let sent = 0
    let flowing = true
    // Twenty callers, each with one call in flight at every moment, through the failover.
    const callers = Array.from({ length: 20 }, async () => {
      while (flowing) {
        sent++
        await follower.send(["INCR", key], () => false).catch((error) => failures.push(String(error)))
      }
    })
    try {
      const old = await sentinel.masterPort()
      const master = await sentinel.failover()
      expect(master).not.toBe(old)
      // Until the follower has moved: the count grows on the new master (which no longer replicates
      // the old one).
      const count = () => Number(execFileSync("redis-cli", ["-p", String(master), "get", key], { encoding: "utf8" }).trim() || 0)
      const promotedWith = count()
      const movedBy = Date.now() + 5_000
      while (count() < promotedWith + 20) {
        if (Date.now() > movedBy) throw new Error("the follower did not reach the new master")
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      const countedBy = sent + 200
      while (sent < countedBy) await new Promise((resolve) => setTimeout(resolve, 5))
    } finally {
      flowing = false
      await Promise.all(callers)
      await follower.close()
    }
    expect(failures).toEqual([])
  }, 30_000)
})
