import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Readiness as CoreReadiness } from "@petstore/core"
import { expectError, expectStatus } from "./support/Expectations.js"
import { TestServer } from "./support/TestServer.js"

const HOUR = 3_600_000
const T = Date.UTC(2029, 2, 14, 10, 30)
const iso = (ms: number) => new Date(ms).toISOString()
const COUNTERS = ["total", "allowed", "rateLimited", "quotaExceeded", "banned", "clientErrors", "serverErrors"] as const

it.effect("GET /admin/v1/usage sums, bucket by bucket, exactly what each account's usage says", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ frozenAt: T - 2 * HOUR, usage: { flushMillis: 3_600_000 } })
    const accounts = [yield* server.enterprise(3), yield* server.enterprise(100), yield* server.enterprise(2)]
    // Traffic in two hours: allowed, 404s, 400s, rate limited.
    for (const [hour, paths] of [[T - 2 * HOUR, ["/v1/pets", "/v1/pets/4242", "/v1/pets", "/v1/pets", "/v1/pets"]], [T, ["/v1/pets?limit=0", "/v1/pets", "/v1/pets"]]] as const) {
      server.clock.setTime(hour)
      for (const account of accounts) for (const path of paths) yield* server.get(path, account.key)
    }
    yield* server.flushUsage
    const query = `from=${iso(T - 3 * HOUR)}&to=${iso(T + 1)}&granularity=hour`
    const all = expectStatus(yield* server.admin.request("GET", `/usage?${query}`), 200)
    expect(all.headers.get("cache-control")).toBe("no-store")
    expect(all.body).toMatchObject({ granularity: "hour", from: iso(Date.UTC(2029, 2, 14, 7)), to: iso(Date.UTC(2029, 2, 14, 11)) })
    const perAccount: Array<Array<Record<string, number>>> = []
    for (const account of accounts) {
      perAccount.push(expectStatus(yield* server.admin.request("GET", `/accounts/${account.id}/usage?${query}`), 200).body.buckets)
    }
    expect(all.body.buckets.map((b: any) => b.start)).toStrictEqual(perAccount[0].map((b: any) => b.start))
    all.body.buckets.forEach((bucket: any, i: number) => {
      for (const counter of COUNTERS) expect(bucket[counter]).toBe(perAccount.reduce((n, buckets) => n + buckets[i][counter], 0))
    })
    expect(all.body.buckets.reduce((n: number, b: any) => n + b.total, 0)).toBe(24)
    expect(all.body.buckets.reduce((n: number, b: any) => n + b.rateLimited, 0)).toBeGreaterThan(0)
    // Defaults: the last 24 hours.
    expect(expectStatus(yield* server.admin.request("GET", "/usage"), 200).body.buckets).toHaveLength(24)
    expectError(yield* server.admin.request("GET", "/usage?granularity=week"), 400, "invalid_request")
  }))

it.effect("GET /admin/v1/usage is 404 when the server counts no usage", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start()
    expectError(yield* server.admin.request("GET", "/usage"), 404, "not_found")
  }))

it.effect("GET /admin/v1/health lists each dependency with why it is not up, and is 200 even when /readyz is 503", () =>
  Effect.gen(function*() {
    let state: CoreReadiness.Check = CoreReadiness.UP
    const server = yield* TestServer.start({ storeReadiness: { check: Effect.sync(() => state) }, quiet: true, frozenAt: T })
    const up = expectStatus(yield* server.admin.request("GET", "/health"), 200)
    expect(up.body).toStrictEqual({
      ready: true,
      draining: false,
      dependencies: [{ name: "store", ready: true, error: null }, { name: "limiter", ready: true, error: null }]
    })
    state = { state: "down", reason: "the database did not answer" }
    // The probe's answer is reused for a second (on the server's clock): move past it.
    server.clock.adjust(1_000)
    const down = expectStatus(yield* server.admin.request("GET", "/health"), 200)
    expect(down.body).toStrictEqual({
      ready: false,
      draining: false,
      dependencies: [{ name: "store", ready: false, error: "the database did not answer" }, { name: "limiter", ready: true, error: null }]
    })
    expectError(yield* server.get("/readyz"), 503, "unavailable")
    expectError(yield* server.request("GET", "/admin/v1/health"), 401, "unauthorized")
  }))

it.effect("GET /admin/v1/health gives each dependency its own reason: a store down without one does not take the limiter's", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({
      storeReadiness: { check: Effect.succeed({ state: "down" }) },
      limiterReadiness: { check: Effect.succeed({ state: "degraded", reason: "the rate limiter's Redis did not answer" }) },
      quiet: true
    })
    expect(expectStatus(yield* server.admin.request("GET", "/health"), 200).body).toStrictEqual({
      ready: false,
      draining: false,
      dependencies: [
        { name: "store", ready: false, error: "down" },
        { name: "limiter", ready: true, error: "the rate limiter's Redis did not answer" }
      ]
    })
  }))
