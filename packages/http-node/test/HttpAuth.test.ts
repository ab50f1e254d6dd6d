import { expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, expectRateLimitHeaders, expectStatus, expectTooManyRequests, expectUnauthorized } from "./support/Expectations.js"
import { ADMIN_TOKEN, TestServer } from "./support/TestServer.js"

const T = Date.UTC(2029, 5, 1, 12)
/** A token shaped like a key that no account holds. */
const UNKNOWN_KEY = "psk_live_" + "A".repeat(32)

const listPets = (server: TestServer["Service"], authorization?: string, headers?: Record<string, string>) =>
  server.request("GET", "/v1/pets", { authorization, headers })

layer(TestServer.layer(), { excludeTestServices: true })("HTTP authentication", (it) => {
  it.effect("a valid key in `Authorization: Bearer <key>` is accepted, whatever the scheme's letter case", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.admin.createAccount()
      expectStatus(yield* listPets(server, `Bearer ${key}`), 200)
      expectStatus(yield* listPets(server, `bearer ${key}`), 200)
      expectStatus(yield* listPets(server, `BEARER ${key}`), 200)
    }))

  it.effect("a missing or malformed Authorization header is 401 with `WWW-Authenticate: Bearer`", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.admin.createAccount()
      const missing = expectUnauthorized(yield* listPets(server))
      expect(missing.headers.get("www-authenticate")).toBe("Bearer realm=\"petstore\"")
      for (
        const header of [
          `Basic ${Buffer.from(`user:${key}`).toString("base64")}`,
          `Basic ${key}`,
          `Bearerx ${key}`,
          `Bearerx${key}`,
          "Bearer",
          "Bearer ",
          `Bearer  ${key}`,
          `Bearer ${key} extra`,
          `${key}`,
          `Token ${key}`
        ]
      ) {
        expectUnauthorized(yield* listPets(server, header))
      }
    }))

  it.effect("an unknown key, or the admin token, is 401 with `error=\"invalid_token\"`", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      for (const token of [UNKNOWN_KEY, "psk_test_" + "b".repeat(32), "not-a-key", ADMIN_TOKEN]) {
        const reply = expectUnauthorized(yield* listPets(server, `Bearer ${token}`))
        expect(reply.headers.get("www-authenticate")).toBe("Bearer realm=\"petstore\", error=\"invalid_token\"")
      }
    }))

  it.effect("a revoked key is refused at once; the account's other keys keep working", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const account = yield* server.admin.createAccount()
      const second = yield* server.admin.createKey(account.id)
      expectStatus(yield* server.get("/v1/pets", account.key), 200)
      yield* server.admin.revokeKey(account.keyId)
      expectUnauthorized(yield* server.get("/v1/pets", account.key))
      expectStatus(yield* server.get("/v1/pets", second.key), 200)
    }))

  it.effect("a key with an expiry in the past is never issued, so it cannot authenticate", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const account = yield* server.admin.createAccount()
      const refused = yield* server.admin.request("POST", `/accounts/${account.id}/keys`, { expiresAt: "2000-01-01T00:00:00Z" })
      expect(refused.status).toBe(400)
      expect(refused.body.code).toBe("invalid_request")
      expect(JSON.stringify(refused.body)).not.toMatch(/psk_/)
    }))

  it.effect("a key works until its expiry and is refused from that instant on", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T })
      const account = yield* server.admin.createAccount()
      const key = yield* server.admin.createKey(account.id, new Date(T + 60_000).toISOString())
      expect(key.expiresAt).toBe(new Date(T + 60_000).toISOString())
      server.clock.setTime(T + 59_999)
      expectStatus(yield* server.get("/v1/pets", key.key), 200)
      server.clock.setTime(T + 60_000)
      expectUnauthorized(yield* server.get("/v1/pets", key.key))
    }))

  it.effect("a rotated key keeps working for the grace period, then is refused; the new key works", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T })
      const account = yield* server.admin.createAccount()
      const rotated = yield* server.admin.rotateKey(account.keyId, 30)
      expect(rotated.key).not.toBe(account.key)
      server.clock.setTime(T + 29_999)
      expectStatus(yield* server.get("/v1/pets", account.key), 200)
      expectStatus(yield* server.get("/v1/pets", rotated.key), 200)
      server.clock.setTime(T + 30_000)
      expectUnauthorized(yield* server.get("/v1/pets", account.key))
      expectStatus(yield* server.get("/v1/pets", rotated.key), 200)
    }))

  it.effect("a key rotated without a grace period is refused at once", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const account = yield* server.admin.createAccount()
      const rotated = yield* server.admin.rotateKey(account.keyId)
      expectUnauthorized(yield* server.get("/v1/pets", account.key))
      expectStatus(yield* server.get("/v1/pets", rotated.key), 200)
    }))

  it.effect("authentication comes first: unknown paths, wrong methods and oversize bodies are 401 without a key", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      for (const path of ["/v1/nothing-here", "/nothing", "/", "/v1/store/orders", "/store/orders", "/v1/pets/abc"]) {
        expectUnauthorized(yield* server.request("GET", path))
        expectUnauthorized(yield* server.request("GET", path, { authorization: `Bearer ${UNKNOWN_KEY}` }))
      }
      expectUnauthorized(yield* server.request("DELETE", "/v1/pets"))
      expectUnauthorized(yield* server.request("PUT", "/v1/pets/1"))
      const oversize = JSON.stringify({ name: "Rex", categoryId: 1, pad: "x".repeat(70_000) })
      expectUnauthorized(
        yield* server.request("POST", "/v1/pets", { raw: oversize, headers: { "content-type": "application/json" } })
      )
      expectUnauthorized(yield* server.request("POST", "/v1/pets", { raw: "{not json" }))
    }))
})

layer(TestServer.layer({ frozenAt: T, rateLimiter: { failedAuthPerMinute: 3 } }), { excludeTestServices: true })(
  "HTTP authentication: failed attempts are limited per client address",
  (it) => {
    it.effect("each failure takes a token of the address; an empty bucket answers 429 with its headers", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key } = yield* server.admin.createAccount()
        for (const remaining of [2, 1, 0]) {
          const reply = expectUnauthorized(yield* listPets(server, `Bearer ${UNKNOWN_KEY}`))
          expect(expectRateLimitHeaders(reply)).toMatchObject({ limit: 3, remaining })
          expect(reply.headers.get("ratelimit-policy")).toBe("\"minute\";q=3;w=60")
          expect(reply.headers.has("retry-after")).toBe(false)
        }
        // missing, malformed and unknown keys all count
        for (const authorization of [undefined, "Basic eDp5", `Bearer ${UNKNOWN_KEY}`]) {
          const reply = yield* listPets(server, authorization)
          // one token every 20 s at 3 per minute
          expect(expectTooManyRequests(reply, "rate_limited")).toBe(20)
          expect(expectRateLimitHeaders(reply)).toMatchObject({ limit: 3, remaining: 0, reset: Math.ceil((T + 60_000) / 1000) })
          expect(reply.headers.has("www-authenticate")).toBe(false)
        }
        // a valid key is not held back by its address's failures
        const ok = expectStatus(yield* server.get("/v1/pets", key), 200)
        expect(expectRateLimitHeaders(ok).limit).toBe(60)
        // a token is back after 20 s
        server.clock.adjust(20_000)
        expectUnauthorized(yield* listPets(server, `Bearer ${UNKNOWN_KEY}`))
        expectError(yield* listPets(server, `Bearer ${UNKNOWN_KEY}`), 429, "rate_limited")
      }))
  }
)

layer(TestServer.layer({ frozenAt: T, rateLimiter: { failedAuthPerMinute: 3 } }), { excludeTestServices: true })(
  "HTTP authentication: successful requests",
  (it) => {
    it.effect("never touch the address bucket", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key } = yield* server.admin.createAccount()
        expect(expectRateLimitHeaders(expectUnauthorized(yield* listPets(server))).remaining).toBe(2)
        for (let i = 0; i < 5; i++) {
          const ok = expectStatus(yield* server.get("/v1/pets", key), 200)
          expect(expectRateLimitHeaders(ok)).toMatchObject({ limit: 60, remaining: 59 - i })
        }
        expectError(yield* server.get("/v1/nothing-here", key), 404, "not_found")
        expect(expectRateLimitHeaders(expectUnauthorized(yield* listPets(server))).remaining).toBe(1)
      }))
  }
)

layer(TestServer.layer({ frozenAt: T, rateLimiter: { failedAuthPerMinute: 2 } }), { excludeTestServices: true })(
  "HTTP authentication: X-Forwarded-For without a trusted proxy",
  (it) => {
    it.effect("is ignored: the socket peer's bucket is charged whatever the header says", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const from = (address: string) => listPets(server, undefined, { "x-forwarded-for": address })
        expect(expectRateLimitHeaders(expectUnauthorized(yield* from("198.51.100.1"))).remaining).toBe(1)
        expect(expectRateLimitHeaders(expectUnauthorized(yield* from("198.51.100.2"))).remaining).toBe(0)
        expectTooManyRequests(yield* from("198.51.100.3"), "rate_limited")
        expectTooManyRequests(yield* listPets(server), "rate_limited")
      }))
  }
)

layer(
  TestServer.layer({ frozenAt: T, trustProxy: 1, rateLimiter: { failedAuthPerMinute: 2 } }),
  { excludeTestServices: true }
)("HTTP authentication: X-Forwarded-For behind one trusted proxy", (it) => {
  it.effect("charges the address the proxy saw (the last entry), not the one a client wrote before it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const from = (forwardedFor: string) => listPets(server, undefined, { "x-forwarded-for": forwardedFor })
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("198.51.100.1"))).remaining).toBe(1)
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("198.51.100.2"))).remaining).toBe(1)
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("203.0.113.9, 198.51.100.1"))).remaining).toBe(0)
      expectTooManyRequests(yield* from("198.51.100.1"), "rate_limited")
      // a forged left-hand entry does not buy a fresh bucket
      expectTooManyRequests(yield* from("203.0.113.77, 198.51.100.1"), "rate_limited")
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("198.51.100.3"))).remaining).toBe(1)
    }))
})

layer(
  TestServer.layer({ frozenAt: T, trustProxy: 2, rateLimiter: { failedAuthPerMinute: 2 } }),
  { excludeTestServices: true }
)("HTTP authentication: X-Forwarded-For behind two trusted proxies", (it) => {
  it.effect("uses the entry the first trusted proxy wrote when it is an IP address; with fewer entries or another word there, the socket peer", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const from = (forwardedFor: string) => listPets(server, undefined, { "x-forwarded-for": forwardedFor })
      // Fewer entries than trusted proxies: the client wrote them all, so the peer (127.0.0.1) is charged.
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("203.0.113.7"))).remaining).toBe(1)
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("203.0.113.8"))).remaining).toBe(0)
      expectTooManyRequests(yield* listPets(server), "rate_limited")
      // Not an address where one is needed (text, a port, two words): the peer's spent bucket again.
      for (const forged of ["not-an-address, 10.0.0.1", "198.51.100.1:8080, 10.0.0.1", "[2001:db8::1], 10.0.0.1", "198.51.100.1 198.51.100.2, 10.0.0.1"]) {
        expectTooManyRequests(yield* from(forged), "rate_limited")
      }
      // Valid addresses get buckets of their own; the leftmost entries a client wrote do not count.
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("198.51.100.1, 10.0.0.1"))).remaining).toBe(1)
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("203.0.113.99, 198.51.100.1,10.0.0.1"))).remaining).toBe(0)
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("2001:db8::1, 10.0.0.1"))).remaining).toBe(1)
      // Empty list elements do not count as entries (RFC 9110 §5.6.1).
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from(" , 198.51.100.7,, 10.0.0.1"))).remaining).toBe(1)
    }))
})

layer(
  TestServer.layer({ frozenAt: T, trustProxy: 1, rateLimiter: { failedAuthPerMinute: 2 } }),
  { excludeTestServices: true }
)("HTTP authentication: IPv6 clients", (it) => {
  it.effect("are limited per /64: every address of one network shares its bucket; an IPv4-mapped address is its IPv4 address", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const from = (forwardedFor: string) => listPets(server, undefined, { "x-forwarded-for": forwardedFor })
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("2001:db8:1:2::1"))).remaining).toBe(1)
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("2001:DB8:1:2:abcd:ef01:2345:6789"))).remaining).toBe(0)
      expectTooManyRequests(yield* from("2001:db8:1:2:ffff:ffff:ffff:fffe"), "rate_limited")
      // The next /64 is another client.
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("2001:db8:1:3::1"))).remaining).toBe(1)
      // A dual-stack listener's form of an IPv4 client shares the IPv4 address's bucket, not one for all of IPv4.
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("::ffff:198.51.100.1"))).remaining).toBe(1)
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("198.51.100.1"))).remaining).toBe(0)
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("::ffff:198.51.100.2"))).remaining).toBe(1)
    }))
})

it.effect("IPv6 grouping follows the configured prefix length (128: per address; 48: per /48)", () =>
  Effect.gen(function*() {
    for (const [ipv6Subnet, second] of [[128, 1], [48, 0]] as const) {
      const server = yield* TestServer.start({ frozenAt: T, trustProxy: 1, ipv6Subnet, rateLimiter: { failedAuthPerMinute: 2 } })
      const from = (forwardedFor: string) => listPets(server, undefined, { "x-forwarded-for": forwardedFor })
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("2001:db8:1:2::1"))).remaining).toBe(1)
      expect(expectRateLimitHeaders(expectUnauthorized(yield* from("2001:db8:1:7::2"))).remaining).toBe(second)
    }
  }))

it.effect("the failed-authentication record is bounded: a new address at a full record empties it instead of growing it", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ frozenAt: T, trustProxy: 1, rateLimiter: { failedAuthPerMinute: 1, failedAuthAddressesKept: 3 } })
    const from = (forwardedFor: string) => listPets(server, undefined, { "x-forwarded-for": forwardedFor })
    expectUnauthorized(yield* from("198.51.100.1"))
    expectTooManyRequests(yield* from("198.51.100.1"), "rate_limited")
    expectUnauthorized(yield* from("198.51.100.2"))
    expectUnauthorized(yield* from("198.51.100.3"))
    // Three kept: .1 is still refused. A fourth address starts the record over, so .1 is forgotten.
    expectTooManyRequests(yield* from("198.51.100.1"), "rate_limited")
    expectUnauthorized(yield* from("198.51.100.4"))
    expectUnauthorized(yield* from("198.51.100.1"))
    expectTooManyRequests(yield* from("198.51.100.4"), "rate_limited")
  }))
