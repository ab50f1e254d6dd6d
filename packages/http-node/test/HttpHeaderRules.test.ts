/**
 * Header rules checked on the wire (raw sockets), not only in process: the `RateLimit-Policy` text,
 * cached per pair of limits, is each response's own account's across interleaved plans; each stage's
 * headers are merged once, in order (the admission's rate-limit headers, then the operation's `Link`,
 * then `Content-Type`), with no header line twice; and a request in absolute form (`GET
 * http://host/v1/pets`) is routed on its path and query exactly like the origin form.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as RawHttp from "./support/RawHttp.js"
import { TestServer } from "./support/TestServer.js"

const T = Date.UTC(2026, 0, 5, 12, 0, 0)
const policy = (perMinute: number, perDay: number) => `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`

/** The header lines of the first answer in `raw`, as sent: names lower-cased, in order. */
const headerLines = (raw: string) =>
  raw.slice(0, raw.indexOf("\r\n\r\n")).split("\r\n").slice(1).map((line) => line.slice(0, line.indexOf(":")).toLowerCase())

describe("header rules over real sockets", () => {
  it.effect("RateLimit-Policy is each response's own account's limits, whatever plans answered before", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true, frozenAt: T })
      const standard = [["free", 60, 1_000], ["pro", 300, 10_000], ["business", 1_000, 100_000]] as const
      const custom = fc.sample(fc.tuple(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 5_000, max: 1_000_000 })), { numRuns: 12, seed: 32 })
      const accounts = [
        ...(yield* Effect.forEach(standard, ([plan, m, d]) => Effect.map(server.admin.createAccount(plan), (a) => ({ key: a.key, m, d })))),
        ...(yield* Effect.forEach(custom, ([m, d]) => Effect.map(server.enterprise(m, d), (a) => ({ key: a.key, m, d }))))
      ]
      // Interleaved, twice over, on one connection: a text cached for one pair of limits never answers another's.
      const order = fc.sample(fc.shuffledSubarray(accounts, { minLength: accounts.length }), { numRuns: 2, seed: 7 }).flat()
      const raw = yield* RawHttp.exchange(server.url, order.map((a) => RawHttp.request("GET", "/v1/pets?limit=1", { key: a.key })).join(""), 20_000)
      const replies = RawHttp.answers(raw)
      expect(replies).toHaveLength(order.length)
      replies.forEach((reply, i) => {
        expect(reply.status).toBe(200)
        expect(reply.headers["ratelimit-policy"]).toBe(policy(order[i]!.m, order[i]!.d))
      })
    }), { timeout: 60_000 })

  it.effect("the stages' headers are merged once and in order: rate-limit headers, then Link, then Content-Type", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true, frozenAt: T })
      const { key } = yield* server.enterprise(10_000)
      for (let i = 0; i < 3; i++) yield* server.createPet(key, { name: `p${i}`, categoryId: 1 })
      const raw = yield* RawHttp.exchange(server.url, RawHttp.request("GET", "/v1/pets?limit=1", { key, headers: "Connection: close\r\n" }))
      const names = headerLines(raw)
      expect(new Set(names).size).toBe(names.length) // no header line twice
      const at = (name: string) => {
        const i = names.indexOf(name)
        expect(i, `${name} in ${names.join(", ")}`).toBeGreaterThanOrEqual(0)
        return i
      }
      const rateLimit = ["ratelimit-policy", "ratelimit", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]
        .filter((n) => names.includes(n)).map(at)
      expect(rateLimit.length).toBeGreaterThan(0)
      expect(Math.max(...rateLimit)).toBeLessThan(at("link"))
      expect(at("link")).toBeLessThan(at("content-type"))
      expect(RawHttp.answers(raw)[0]!.headers["content-type"]).toBe("application/json")
    }))

  it.effect("a request in absolute form is routed on its path and query, exactly as in origin form", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true, frozenAt: T })
      const { key } = yield* server.enterprise(10_000)
      for (let i = 0; i < 3; i++) yield* server.createPet(key, { name: `abs ${i}`, categoryId: 2 })
      const cases: ReadonlyArray<readonly [string, string | undefined]> = [
        ["/v1/pets?limit=2", key],
        ["/v1/pets/2", key],
        ["/v1/pets/999", key],
        ["/v1/openapi.json", undefined],
        ["/v1/pets", undefined],
        ["/v1/nowhere", key]
      ]
      for (const [path, withKey] of cases) {
        const options = { ...(withKey === undefined ? {} : { key: withKey }), headers: "Connection: close\r\n" }
        const [origin] = RawHttp.answers(yield* RawHttp.exchange(server.url, RawHttp.request("GET", path, options)))
        for (const absolute of [`http://x${path}`, `http://127.0.0.1:1${path}`, `HTTP://EXAMPLE.COM${path}`]) {
          const [reply] = RawHttp.answers(yield* RawHttp.exchange(server.url, RawHttp.request("GET", absolute, options)))
          expect({ target: absolute, status: reply!.status, body: reply!.body, link: reply!.headers["link"] })
            .toStrictEqual({ target: absolute, status: origin!.status, body: origin!.body, link: origin!.headers["link"] })
        }
      }
    }))
})
