import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import {
  expectError,
  expectRateLimitHeaders,
  expectStatus,
  expectTooManyRequests,
  remainingOf
} from "./support/Expectations.js"
import { TestServer } from "./support/TestServer.js"

const DAY = 86_400_000
/** Noon UTC: far from the daily reset, so only the minute limit is in play unless a test moves the clock. */
const T = Date.UTC(2029, 2, 14, 12)
const MINUTES = 60_000

const seconds = (millis: number) => Math.ceil(millis / 1000)
/** After the first refusal of a wait, refused requests do not count toward a ban for this long. */
const GRACE = 250

layer(TestServer.layer({ frozenAt: T }), { excludeTestServices: true })("HTTP rate limits: headers", (it) => {
  it.effect("every response carries the rate-limit headers: 200, 201, 202, 400, 401, 404, 405, 413, 429", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.admin.createAccount("free")
      const tiny = yield* server.enterprise(1)
      const json = { "content-type": "application/json" }
      const replies = [
        expectStatus(yield* server.get("/v1/pets", key), 200),
        expectStatus(yield* server.post("/v1/pets", { name: "Rex", categoryId: 1 }, key), 201),
        expectStatus(yield* server.post("/v1/messages", { message: "hi" }, key), 202),
        expectStatus(yield* server.get("/v1/pets/1", key), 200),
        expectError(yield* server.get("/v1/pets?limit=0", key), 400, "invalid_request"),
        expectError(yield* server.request("POST", "/v1/pets", { key, raw: "{", headers: json }), 400, "invalid_json"),
        expectError(yield* server.request("POST", "/v1/pets", { key, raw: "{}" }), 400, "unsupported_media_type"),
        expectError(yield* server.get("/v1/pets?cursor=forged.cursor", key), 400, "invalid_cursor"),
        expectError(yield* server.get("/v1/pets"), 401, "unauthorized"),
        expectError(yield* server.get("/v1/nothing", key), 404, "not_found"),
        expectError(yield* server.get("/v1/pets/424242", key), 404, "not_found"),
        expectError(yield* server.request("DELETE", "/v1/pets", { key }), 405, "method_not_allowed"),
        expectError(
          yield* server.request("POST", "/v1/pets", { key, raw: "x".repeat(70_000), headers: json }),
          413,
          "payload_too_large"
        ),
        expectStatus(yield* server.get("/v1/pets", tiny.key), 200),
        expectError(yield* server.get("/v1/pets", tiny.key), 429, "rate_limited")
      ]
      for (const reply of replies) expectRateLimitHeaders(reply)
    }))

  it.effect("the numbers are exact: the free plan's policy, one token per request, `Reset` when full again", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.admin.createAccount("free")
      const midnight = seconds((Math.floor(T / DAY) + 1) * DAY)
      for (let i = 1; i <= 3; i++) {
        const reply = expectStatus(yield* server.get("/v1/pets", key), 200)
        expect(expectRateLimitHeaders(reply)).toEqual({
          limit: 60,
          remaining: 60 - i,
          // one token back per second: full again after i seconds
          reset: seconds(T) + i,
          policy: "\"minute\";q=60;w=60, \"day\";q=1000;w=86400",
          state: `"minute";r=${60 - i};t=${i}, "day";r=${1000 - i};t=${midnight - seconds(T)}`
        })
      }
    }))

  it.effect("each plan announces its own numbers", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const plans = [
        ["free", "\"minute\";q=60;w=60, \"day\";q=1000;w=86400"],
        ["pro", "\"minute\";q=300;w=60, \"day\";q=10000;w=86400"],
        ["business", "\"minute\";q=1000;w=60, \"day\";q=100000;w=86400"]
      ] as const
      for (const [plan, policy] of plans) {
        const { key } = yield* server.admin.createAccount(plan)
        expect(expectRateLimitHeaders(yield* server.get("/v1/pets", key)).policy).toBe(policy)
      }
      const { key } = yield* server.enterprise(7, 5000)
      expect(expectRateLimitHeaders(yield* server.get("/v1/pets", key)).policy).toBe("\"minute\";q=7;w=60, \"day\";q=5000;w=86400")
    }))

  it.effect("`X-RateLimit-*` describe the limit closest to exhaustion", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.enterprise(100, 3)
      const reply = expectStatus(yield* server.get("/v1/pets", key), 200)
      expect(expectRateLimitHeaders(reply)).toMatchObject({
        limit: 3,
        remaining: 2,
        reset: seconds((Math.floor(T / DAY) + 1) * DAY)
      })
      expect(remainingOf(reply, "minute")).toBe(99)
    }))
})

describe("HTTP rate limits: limits, quotas and bans", () => {
  it.effect("limits apply per account, across all its keys; other accounts are not affected", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T })
      const account = yield* server.enterprise(3)
      const second = yield* server.admin.createKey(account.id)
      const other = yield* server.enterprise(3)
      expectStatus(yield* server.get("/v1/pets", account.key), 200)
      expectStatus(yield* server.get("/v1/pets", second.key), 200)
      expect(expectRateLimitHeaders(expectStatus(yield* server.get("/v1/pets", account.key), 200)).remaining).toBe(0)
      expectTooManyRequests(yield* server.get("/v1/pets", second.key), "rate_limited")
      expectTooManyRequests(yield* server.get("/v1/pets", account.key), "rate_limited")
      expect(expectRateLimitHeaders(expectStatus(yield* server.get("/v1/pets", other.key), 200)).remaining).toBe(2)
    }))

  it.effect("per minute is a token bucket: a burst up to the plan's number, then one request back every 60/n seconds", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T })
      const { key } = yield* server.admin.createAccount("free")
      for (let i = 0; i < 60; i++) expectStatus(yield* server.get("/v1/pets", key), 200)
      expect(expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")).toBe(1)
      server.clock.adjust(1_000)
      expectStatus(yield* server.get("/v1/pets", key), 200)
      expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")
      server.clock.adjust(30_000)
      for (let i = 0; i < 30; i++) expectStatus(yield* server.get("/v1/pets", key), 200)
      expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")
      // the bucket never holds more than its capacity, however long the rest
      server.clock.adjust(10 * MINUTES)
      for (let i = 0; i < 60; i++) expectStatus(yield* server.get("/v1/pets", key), 200)
      expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")
    }))

  it.effect("concurrent requests are decided one at a time: exactly the limit gets through", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T })
      const perMinute = yield* server.enterprise(5)
      const perDay = yield* server.enterprise(1_000, 7)
      for (const [key, admitted] of [[perMinute.key, 5], [perDay.key, 7]] as const) {
        const replies = yield* Effect.all(Array.from({ length: 25 }, () => server.get("/v1/pets", key)), {
          concurrency: "unbounded"
        })
        expect(replies.filter((r) => r.status === 200)).toHaveLength(admitted)
        for (const reply of replies.filter((r) => r.status !== 200)) expectTooManyRequests(reply, reply.body.code)
      }
    }))

  it.effect("429 `rate_limited` says how long to wait; waiting exactly `Retry-After` and retrying succeeds", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T })
      const { key } = yield* server.enterprise(3)
      for (let i = 0; i < 3; i++) expectStatus(yield* server.get("/v1/pets", key), 200)
      const rejected = yield* server.get("/v1/pets", key)
      // one token every 20 s at 3 per minute
      expect(expectTooManyRequests(rejected, "rate_limited")).toBe(20)
      expect(expectRateLimitHeaders(rejected)).toMatchObject({ limit: 3, remaining: 0, reset: seconds(T + MINUTES) })
      server.clock.adjust(20_000)
      const retried = expectStatus(yield* server.get("/v1/pets", key), 200)
      expect(retried.headers.has("retry-after")).toBe(false)
      // waits that are not whole seconds are rounded up
      server.clock.adjust(1)
      expect(expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")).toBe(20)
      server.clock.adjust(19_998)
      expect(expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")).toBe(1)
      server.clock.adjust(1)
      expectStatus(yield* server.get("/v1/pets", key), 200)
    }))

  it.live("on the real clock, a client that waits `Retry-After` seconds and retries succeeds", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start()
      const { key } = yield* server.enterprise(60)
      let reply = yield* server.get("/v1/pets", key)
      for (let i = 0; i < 1000 && reply.status === 200; i++) reply = yield* server.get("/v1/pets", key)
      const retryAfter = expectTooManyRequests(reply, "rate_limited")
      expect(retryAfter).toBe(1)
      yield* Effect.sleep(`${retryAfter} seconds`)
      expectStatus(yield* server.get("/v1/pets", key), 200)
    }))

  it.effect("a rejected request consumes nothing from either limit", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T })
      const { key } = yield* server.enterprise(1, 5)
      expect(remainingOf(expectStatus(yield* server.get("/v1/pets", key), 200), "day")).toBe(4)
      for (let i = 0; i < 3; i++) {
        const rejected = yield* server.get("/v1/pets", key)
        expectTooManyRequests(rejected, "rate_limited")
        expect(remainingOf(rejected, "day")).toBe(4)
      }
      server.clock.adjust(MINUTES)
      expect(remainingOf(expectStatus(yield* server.get("/v1/pets", key), 200), "day")).toBe(3)
    }))

  it.effect("the daily quota: exhausted → 429 `daily_quota_exceeded` until 00:00 UTC, then it starts again", () =>
    Effect.gen(function*() {
      const midnight = Date.UTC(2029, 2, 15)
      const server = yield* TestServer.start({ frozenAt: midnight - MINUTES })
      const { key } = yield* server.enterprise(100, 3)
      for (let i = 0; i < 3; i++) expectStatus(yield* server.get("/v1/pets", key), 200)
      const exhausted = yield* server.get("/v1/pets", key)
      expect(expectTooManyRequests(exhausted, "daily_quota_exceeded")).toBe(60)
      expect(expectRateLimitHeaders(exhausted)).toMatchObject({ limit: 3, remaining: 0, reset: seconds(midnight) })
      server.clock.setTime(midnight - 1)
      expectTooManyRequests(yield* server.get("/v1/pets", key), "daily_quota_exceeded")
      server.clock.setTime(midnight)
      const nextDay = expectStatus(yield* server.get("/v1/pets", key), 200)
      expect(remainingOf(nextDay, "day")).toBe(2)
    }))

  it.effect("a key that sends more than 10 requests after the grace while told to wait is banned: 429 `key_banned` for 15 minutes", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T })
      const account = yield* server.enterprise(1)
      const other = yield* server.admin.createKey(account.id)
      expectStatus(yield* server.get("/v1/pets", account.key), 200)
      // the first rejection tells the key to wait; requests within its grace are not held against it
      for (let i = 0; i < 20; i++) expectTooManyRequests(yield* server.get("/v1/pets", account.key), "rate_limited")
      // after the grace, 10 early requests are tolerated
      server.clock.adjust(GRACE)
      const B = T + GRACE
      for (let i = 0; i < 10; i++) expectTooManyRequests(yield* server.get("/v1/pets", account.key), "rate_limited")
      const banned = yield* server.get("/v1/pets", account.key)
      expect(expectTooManyRequests(banned, "key_banned")).toBe(15 * 60)
      expect(expectRateLimitHeaders(banned)).toMatchObject({ remaining: 0, reset: seconds(B + 15 * MINUTES) })
      // the ban is the key's: the account's other key is only rate limited
      expectTooManyRequests(yield* server.get("/v1/pets", other.key), "rate_limited")
      // Retry-After is the rest of the ban, and requests while banned do not extend it
      server.clock.adjust(5 * MINUTES)
      expect(expectTooManyRequests(yield* server.get("/v1/pets", account.key), "key_banned")).toBe(10 * 60)
      server.clock.setTime(B + 15 * MINUTES - 1)
      expect(expectTooManyRequests(yield* server.get("/v1/pets", account.key), "key_banned")).toBe(1)
      server.clock.setTime(B + 15 * MINUTES)
      expectStatus(yield* server.get("/v1/pets", account.key), 200)
    }))

  it.effect("72 concurrent requests on a fresh free key: 60 pass, 12 get 429 `rate_limited`, none `key_banned`; hammering after the grace still bans", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T })
      const { key } = yield* server.admin.createAccount("free")
      const replies = yield* Effect.all(Array.from({ length: 72 }, () => server.get("/v1/pets", key)), {
        concurrency: "unbounded"
      })
      expect(replies.filter((r) => r.status === 200)).toHaveLength(60)
      const refused = replies.filter((r) => r.status !== 200)
      for (const reply of refused) expect(expectTooManyRequests(reply, "rate_limited")).toBe(1)
      // a client that honours Retry-After gets through
      server.clock.adjust(1_000)
      expectStatus(yield* server.get("/v1/pets", key), 200)
      // a client that hammers through its 1 s wait once the grace is over is banned at the 11th early request
      expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")
      const codes: Array<string> = []
      for (let i = 0; i < 11; i++) {
        server.clock.adjust(i === 0 ? GRACE : 50)
        codes.push((yield* server.get("/v1/pets", key)).body.code)
      }
      expect(codes).toEqual([...Array(10).fill("rate_limited"), "key_banned"])
    }))

  it.effect("bans double for each repeat within 24 h, up to 24 h, and start again at 15 minutes after a good day", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T })
      const { key } = yield* server.enterprise(1)
      /**
       * From a rested key: one admitted request, one rejection, and after its grace 11 early
       * requests; returns the ban's Retry-After.
       */
      const getBanned = Effect.gen(function*() {
        expectStatus(yield* server.get("/v1/pets", key), 200)
        expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")
        server.clock.adjust(GRACE)
        for (let i = 0; i < 10; i++) expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")
        return expectTooManyRequests(yield* server.get("/v1/pets", key), "key_banned")
      })
      const bans: Array<number> = []
      for (let i = 0; i < 9; i++) {
        const ban = yield* getBanned
        bans.push(ban)
        server.clock.adjust(ban * 1000)
      }
      expect(bans).toEqual([15, 30, 60, 120, 240, 480, 960, 1440, 1440].map((m) => m * 60))
      server.clock.adjust(DAY)
      expect(yield* getBanned).toBe(15 * 60)
    }))

  it.effect("the ban threshold, duration and grace are configurable", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({
        frozenAt: T,
        rateLimiter: { ban: { threshold: 2, baseMillis: 60_000, maxMillis: 120_000, memoryMillis: DAY, graceMillis: 2_000 } }
      })
      const { key } = yield* server.enterprise(1)
      expectStatus(yield* server.get("/v1/pets", key), 200)
      for (let i = 0; i < 5; i++) expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")
      server.clock.adjust(1_999)
      expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")
      server.clock.adjust(1)
      for (let i = 0; i < 2; i++) expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")
      expect(expectTooManyRequests(yield* server.get("/v1/pets", key), "key_banned")).toBe(60)
    }))

  it.effect("a client that honours Retry-After is never banned, and gets every request through eventually", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T })
      const { key } = yield* server.enterprise(2, 40)
      let admitted = 0
      let waits = 0
      for (let i = 0; i < 150; i++) {
        const reply = yield* server.get("/v1/pets", key)
        if (reply.status === 200) {
          admitted++
          continue
        }
        const code = reply.body.code
        expect(["rate_limited", "daily_quota_exceeded"]).toContain(code)
        waits++
        server.clock.adjust(expectTooManyRequests(reply, code) * 1000)
      }
      expect(admitted + waits).toBe(150)
      // the daily quota was reached and reset along the way: more than one day's worth got through
      expect(admitted).toBeGreaterThan(40)
      expect(waits).toBeGreaterThan(0)
    }))
})
