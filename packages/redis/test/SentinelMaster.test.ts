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

  it.effect("an instance started while no sentinel answers finds the master once one does", () =>
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

  it.effect("decisions go on while every sentinel is stopped (the master answers)", () =>
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

  /**
   * Calls to the follower through a `SENTINEL FAILOVER`: four every 2 ms without waiting for their
   * answers, each with a deadline; `pauseOld`: the old master holds writes from before the failover
   * until the follower has moved, then hangs up on its clients (as Sentinel does when it demotes a
   * master). Resolves with the calls' failures.
   */
  const throughFailover = async (options: { readonly askTimeoutMillis: number; readonly callDeadlineMillis: number; readonly pauseOld: boolean }) => {
    const follower = SentinelMaster.follow({
      nodes: sentinel.sentinels.map((s) => ({ host: "127.0.0.1", port: Number(s.split(":")[1]) })),
      name: sentinel.name,
      socket: { connectTimeout: 1_000, reconnectStrategy: () => 50 },
      askTimeoutMillis: options.askTimeoutMillis,
      checkEveryMillis: 100
    })
    await follower.connect()
    const key = `sentinel-test:${Math.random().toString(36).slice(2)}:count`
    const failures: Array<string> = []
    const calls: Array<Promise<void>> = []
    let sent = 0
    const call = () => {
      sent++
      let timer: ReturnType<typeof setTimeout> | undefined
      calls.push(Promise.race([
        follower.send(["INCR", key], () => false).then(() => undefined, (error) => void failures.push(String(error))),
        new Promise<void>((resolve) => {
          timer = setTimeout(() => resolve(void failures.push(`no answer within ${options.callDeadlineMillis} ms`)), options.callDeadlineMillis)
        })
      ]).finally(() => clearTimeout(timer)))
    }
    let flowing = true
    const load = (async () => {
      while (flowing) {
        for (let i = 0; i < 4; i++) call()
        await new Promise((resolve) => setTimeout(resolve, 2))
      }
    })()
    const cli = (port: number, ...args: Array<string>) => execFileSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" }).trim()
    try {
      const old = await sentinel.masterPort()
      if (options.pauseOld) cli(old, "client", "pause", "20000", "write")
      const master = await sentinel.failover()
      expect(master).not.toBe(old)
      // Until the follower has moved: the count grows on the new master (which no longer replicates
      // the old one).
      const count = () => Number(cli(master, "get", key) || 0)
      const promotedWith = count()
      const movedBy = Date.now() + 5_000
      while (count() < promotedWith + 20) {
        if (Date.now() > movedBy) throw new Error("the follower did not reach the new master")
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      if (options.pauseOld) {
        cli(old, "client", "kill", "type", "normal")
        cli(old, "client", "unpause")
      }
      const countedBy = sent + 200
      while (sent < countedBy) await new Promise((resolve) => setTimeout(resolve, 5))
    } finally {
      flowing = false
      await load
      await Promise.all(calls)
      await follower.close()
    }
    return failures
  }

  it("calls in flight when the follower moves to the new master are answered by the old one, none dropped", async () => {
    expect(await throughFailover({ askTimeoutMillis: 250, callDeadlineMillis: 1_000, pauseOld: false })).toEqual([])
  }, 30_000)

  it("calls the old master still owes when it hangs up are sent again to the new one, none left without an answer", async () => {
    expect(await throughFailover({ askTimeoutMillis: 5_000, callDeadlineMillis: 4_000, pauseOld: true })).toEqual([])
  }, 30_000)
})
