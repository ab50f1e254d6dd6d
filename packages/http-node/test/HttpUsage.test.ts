import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, expectRateLimitHeaders, expectStatus } from "./support/Expectations.js"
import { TestServer } from "./support/TestServer.js"

const HOUR = 3_600_000
const DAY = 86_400_000
/** 10:30 UTC: the current hour's bucket starts at 10:00. */
const T = Date.UTC(2029, 2, 14, 10, 30)
const iso = (ms: number) => new Date(ms).toISOString()

const ZERO = { total: 0, allowed: 0, rateLimited: 0, quotaExceeded: 0, banned: 0, clientErrors: 0, serverErrors: 0 }

layer(TestServer.layer({ frozenAt: T, usage: { flushMillis: 3_600_000 } }), { excludeTestServices: true })("HTTP usage", (it) => {
  it.effect("after a burst of known outcomes, the account's usage equals the answers the client saw, and another account sees none of it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      server.clock.setTime(T)
      const account = yield* server.enterprise(4)
      const other = yield* server.enterprise(100)
      const seen: Array<number> = []
      for (const path of ["/v1/pets", "/v1/pets/4242", "/v1/pets?limit=0", "/v1/pets", "/v1/pets", "/v1/pets"]) {
        seen.push((yield* server.get(path, account.key)).status)
      }
      expect(seen).toStrictEqual([200, 404, 400, 200, 429, 429])
      yield* server.flushUsage
      server.clock.setTime(T + 60_000)
      const reply = expectStatus(yield* server.get(`/v1/usage?from=${iso(T - 2 * HOUR)}&to=${iso(T + 1)}`, account.key), 200)
      expectRateLimitHeaders(reply)
      expect(reply.headers.get("x-request-id")).not.toBeNull()
      expect(reply.body.accountId).toBe(account.id)
      expect(reply.body.granularity).toBe("hour")
      const hour = Date.UTC(2029, 2, 14, 10)
      expect(reply.body.buckets).toStrictEqual([
        { start: iso(hour - 2 * HOUR), ...ZERO },
        { start: iso(hour - HOUR), ...ZERO },
        { start: iso(hour), total: 6, allowed: 4, rateLimited: 2, quotaExceeded: 0, banned: 0, clientErrors: 2, serverErrors: 0 }
      ])
      // This request counts like any other: a token of the minute and one of the day.
      expect(reply.body.limits.minute).toStrictEqual({ limit: 4, remaining: 3, reset: iso(T + 60_000 + 15_000) })
      expect(reply.body.limits.day).toStrictEqual({ limit: 1_000_000, used: 5, remaining: 999_995, reset: iso(Date.UTC(2029, 2, 15)) })

      const others = expectStatus(yield* server.get(`/v1/usage?from=${iso(T - 2 * HOUR)}&to=${iso(T + 1)}`, other.key), 200)
      expect(others.body.buckets.every((b: { total: number }) => b.total === 0)).toBe(true)
    }))

  it.effect("a day's refusals for the daily quota show in that day's bucket the next day (granularity=day)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      server.clock.setTime(T)
      const account = yield* server.admin.createAccount("enterprise", { perMinute: 100, perDay: 2 })
      const seen: Array<number> = []
      for (let i = 0; i < 4; i++) seen.push((yield* server.get("/v1/pets", account.key)).status)
      expect(seen).toStrictEqual([200, 200, 429, 429])
      expectError(yield* server.get("/v1/usage", account.key), 429, "daily_quota_exceeded")
      yield* server.flushUsage
      server.clock.setTime(T + DAY)
      const day = Date.UTC(2029, 2, 14)
      const reply = expectStatus(yield* server.get(`/v1/usage?granularity=day&from=${iso(day - DAY)}&to=${iso(day + 2 * DAY)}`, account.key), 200)
      expect(reply.body.buckets).toStrictEqual([
        { start: iso(day - DAY), ...ZERO },
        { start: iso(day), total: 5, allowed: 2, rateLimited: 0, quotaExceeded: 3, banned: 0, clientErrors: 0, serverErrors: 0 },
        { start: iso(day + DAY), ...ZERO }
      ])
      expect(reply.body.limits.day).toMatchObject({ limit: 2, used: 1, remaining: 1 })
    }))

  it.effect("without from and to: the last 24 hours (or 30 days), zero-filled, ending with the current bucket", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      server.clock.setTime(T)
      const { key } = yield* server.admin.createAccount("free")
      const hours = expectStatus(yield* server.get("/v1/usage", key), 200).body.buckets
      expect(hours.length).toBe(24)
      expect(hours.at(-1).start).toBe(iso(Date.UTC(2029, 2, 14, 10)))
      expect(hours.map((b: { start: string }) => Date.parse(b.start))).toStrictEqual(
        Array.from({ length: 24 }, (_, i) => Date.UTC(2029, 2, 14, 10) - (23 - i) * HOUR)
      )
      const days = expectStatus(yield* server.get("/v1/usage?granularity=day", key), 200).body.buckets
      expect(days.length).toBe(30)
      expect(days.at(-1).start).toBe(iso(Date.UTC(2029, 2, 14)))
    }))

  it.effect("unbounded or malformed ranges are 400 with an Error body; no key is 401", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      server.clock.setTime(T)
      const { key } = yield* server.admin.createAccount("free")
      const bad = [
        `/v1/usage?from=${iso(T - 8 * DAY)}&to=${iso(T)}`,
        `/v1/usage?granularity=day&from=${iso(T - 401 * DAY)}&to=${iso(T)}`,
        `/v1/usage?from=${iso(T)}&to=${iso(T - HOUR)}`,
        "/v1/usage?granularity=minute",
        "/v1/usage?from=yesterday",
        "/v1/usage?from=2029-02-30T00:00:00Z"
      ]
      for (const path of bad) {
        const reply = expectError(yield* server.get(path, key), 400, "invalid_request")
        expect(reply.body.message, path).toMatch(/\w/)
        expectRateLimitHeaders(reply)
      }
      const hour = Date.UTC(2029, 2, 14, 10)
      expect(expectStatus(yield* server.get(`/v1/usage?from=${iso(hour - 7 * DAY)}&to=${iso(hour)}`, key), 200).body.buckets.length).toBe(168)
      // ISO 8601's calendar: year 0 is a leap year (1900 is not).
      const leap = expectStatus(yield* server.get("/v1/usage?granularity=day&from=0000-02-29T00:00:00Z&to=0000-03-01T00:00:00Z", key), 200)
      expect(leap.body.buckets).toStrictEqual([{ start: "0000-02-29T00:00:00.000Z", ...ZERO }])
      expectError(yield* server.get("/v1/usage?granularity=day&from=1900-02-29T00:00:00Z&to=1900-03-01T00:00:00Z", key), 400, "invalid_request")
      expectError(yield* server.get("/v1/usage"), 401, "unauthorized")
    }))
})

layer(TestServer.layer({ frozenAt: T }), { excludeTestServices: true })("HTTP usage on a server that counts none", (it) => {
  it.effect("GET /v1/usage is 404 with an Error body", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.admin.createAccount("free")
      expectError(yield* server.get("/v1/usage", key), 404, "not_found")
    }))
})

layer(TestServer.layer({ frozenAt: T, usage: { flushMillis: 3_600_000 } }), { excludeTestServices: true })("HTTP usage: admin API", (it) => {
  it.effect("an account's usage by key, with its keys' prefixes, and the busiest accounts by total and by refusals", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      server.clock.setTime(T)
      const busy = yield* server.enterprise(3)
      const second = yield* server.admin.createKey(busy.id)
      const quiet = yield* server.enterprise(100)
      for (let i = 0; i < 5; i++) yield* server.get("/v1/pets", busy.key) // 3 allowed, 2 rate limited
      yield* server.get("/v1/pets/4242", second.key) // refused: the account's minute is spent
      for (let i = 0; i < 2; i++) yield* server.get("/v1/pets", quiet.key)
      yield* server.flushUsage
      const hour = Date.UTC(2029, 2, 14, 10)
      const range = `from=${iso(hour)}&to=${iso(hour + HOUR)}`
      const reply = expectStatus(yield* server.admin.request("GET", `/accounts/${busy.id}/usage?${range}`), 200)
      expect(reply.body.buckets).toStrictEqual([
        { start: iso(hour), total: 6, allowed: 3, rateLimited: 3, quotaExceeded: 0, banned: 0, clientErrors: 0, serverErrors: 0 }
      ])
      expect(reply.body.limits).toStrictEqual({
        minute: { limit: 3 },
        day: { limit: 1_000_000, used: 3, remaining: 999_997, reset: iso(Date.UTC(2029, 2, 15)) }
      })
      const byKey = new Map(reply.body.byKey.map((k: any) => [k.keyId, k]))
      expect((byKey.get(busy.keyId) as any).prefix).toBe(busy.prefix)
      expect((byKey.get(busy.keyId) as any).buckets[0]).toMatchObject({ total: 5, allowed: 3, rateLimited: 2 })
      expect((byKey.get(second.id) as any).prefix).toBe(second.prefix)
      expect((byKey.get(second.id) as any).buckets[0]).toMatchObject({ total: 1, allowed: 0, rateLimited: 1 })
      // byKey is bounded: the busiest keys first, at most `keys` of them (default 10); keysTotal counts them all.
      expect(reply.body.byKey.map((k: any) => k.keyId)).toStrictEqual([busy.keyId, second.id])
      expect(reply.body.keysTotal).toBe(2)
      const first = expectStatus(yield* server.admin.request("GET", `/accounts/${busy.id}/usage?keys=1&${range}`), 200).body
      expect([first.byKey.map((k: any) => k.keyId), first.keysTotal]).toStrictEqual([[busy.keyId], 2])
      for (const keys of ["0", "101", "1e1", "-1", "two"]) {
        expectError(yield* server.admin.request("GET", `/accounts/${busy.id}/usage?keys=${keys}`), 400, "invalid_request")
      }

      const byTotal = expectStatus(yield* server.admin.request("GET", `/usage/top?${range}`), 200).body
      expect(byTotal.accounts).toStrictEqual([
        { accountId: busy.id, total: 6, refused: 3 },
        { accountId: quiet.id, total: 2, refused: 0 }
      ])
      const byRefused = expectStatus(yield* server.admin.request("GET", `/usage/top?by=refused&limit=5&${range}`), 200).body
      expect(byRefused).toMatchObject({ by: "refused", granularity: "hour", from: iso(hour), to: iso(hour + HOUR) })
      expect(byRefused.accounts).toStrictEqual([{ accountId: busy.id, total: 6, refused: 3 }])

      expectError(yield* server.admin.request("GET", "/accounts/acc_nobody/usage"), 404, "not_found")
      expectError(yield* server.admin.request("GET", "/usage/top?by=loudest"), 400, "invalid_request")
      // An integer in decimal digits, nothing else that JavaScript would read as a number.
      for (const limit of ["1e2", "0x10", "%20100", "100.0", "+5", "0", "101"]) {
        expectError(yield* server.admin.request("GET", `/usage/top?limit=${limit}`), 400, "invalid_request")
      }
      expectError(yield* server.admin.request("GET", `/usage/top?from=${iso(T - 30 * DAY)}`), 400, "invalid_request")
      expectError(yield* server.request("GET", `/admin/v1/usage/top`), 401, "unauthorized")
    }))
})
