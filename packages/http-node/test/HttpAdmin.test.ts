import { expect, it, layer } from "@effect/vitest"
import * as OpenApi from "effect/http-api/OpenApi"
import { Effect } from "effect"
import { AdminApi } from "../src/AdminApi.js"
import { ERROR_CODES } from "../src/ErrorCodes.js"
import { expectError, expectInvalid, expectRateLimitHeaders, expectStatus, expectUnauthorized } from "./support/Expectations.js"
import { ADMIN_TOKEN, type Reply, TestServer } from "./support/TestServer.js"

const T = Date.UTC(2029, 8, 1, 8)
const LIVE_KEY = /^psk_live_[0-9A-Za-z]{32}$/
const KEY_METADATA = ["createdAt", "expiresAt", "id", "prefix", "revokedAt", "rotatedTo", "state"]

/** No rate-limit headers: the admin API is not rate-limited, and keys must not be cached. */
const expectAdminHeaders = (reply: Reply) => {
  expect(reply.headers.get("cache-control")).toBe("no-store")
  expect(reply.headers.has("x-ratelimit-limit")).toBe(false)
}

it.effect("without an admin token configured, every /admin path is 404", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ adminToken: null })
    for (const authorization of [undefined, `Bearer ${ADMIN_TOKEN}`, "Bearer anything-at-all-0000"]) {
      expectError(yield* server.request("POST", "/admin/v1/accounts", { authorization, json: { plan: "free" } }), 404, "not_found")
      expectError(yield* server.request("GET", "/admin/v1/accounts/acc_x/keys", { authorization }), 404, "not_found")
      expectError(yield* server.request("GET", "/admin", { authorization }), 404, "not_found")
    }
  }))

layer(TestServer.layer(), { excludeTestServices: true })("HTTP admin API", (it) => {
  it.effect("a missing or wrong admin token is 401 with `WWW-Authenticate: Bearer`", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.admin.createAccount()
      for (
        const authorization of [
          undefined,
          `Bearer ${ADMIN_TOKEN}x`,
          `Bearer ${ADMIN_TOKEN.slice(0, -1)}`,
          `Basic ${ADMIN_TOKEN}`,
          `Bearer ${key}`,
          "Bearer "
        ]
      ) {
        expectUnauthorized(yield* server.request("POST", "/admin/v1/accounts", { authorization, json: { plan: "free" } }))
        const refused = expectUnauthorized(yield* server.request("GET", "/admin/v1/nothing", { authorization }))
        // It names what these paths take: the admin token, not an API key.
        expect(refused.body).toMatchObject({ message: expect.stringMatching(/^The admin token is required: .*PETSTORE_ADMIN_TOKEN.*an API key is not accepted here/) })
      }
      expectStatus(yield* server.request("POST", "/admin/v1/accounts", { authorization: `bearer ${ADMIN_TOKEN}`, json: { plan: "free" } }), 201)
    }))

  it.effect("creates an account on each standard plan: 201 {id, plan, key} with the plan's limits, and the key works", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const plans = { free: [60, 1_000], pro: [300, 10_000], business: [1_000, 100_000] } as const
      for (const [plan, [perMinute, perDay]] of Object.entries(plans)) {
        const reply = expectStatus(yield* server.admin.request("POST", "/accounts", { plan }), 201)
        expectAdminHeaders(reply)
        expect(reply.headers.get("content-type")).toBe("application/json")
        expect(reply.body).toMatchObject({ plan, limits: { perMinute, perDay } })
        expect(reply.body.id).toMatch(/^acc_[0-9A-Za-z]{22}$/)
        expect(reply.body.key).toMatch(LIVE_KEY)
        expect(reply.body.prefix).toBe(reply.body.key.slice(0, "psk_live_".length + 4))
        const used = expectStatus(yield* server.get("/v1/pets", reply.body.key), 200)
        expect(expectRateLimitHeaders(used).policy).toBe(`"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`)
      }
    }))

  it.effect("enterprise accounts carry their own limits, which are required; standard plans refuse custom ones", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const limits = { perMinute: 5_000, perDay: 2_000_000 }
      const created = expectStatus(yield* server.admin.request("POST", "/accounts", { plan: "enterprise", limits }), 201)
      expect(created.body).toMatchObject({ plan: "enterprise", limits })
      expect(expectRateLimitHeaders(yield* server.get("/v1/pets", created.body.key)).policy)
        .toBe("\"minute\";q=5000;w=60, \"day\";q=2000000;w=86400")
      expectError(yield* server.admin.request("POST", "/accounts", { plan: "enterprise" }), 400, "invalid_request", /limits/)
      expectError(yield* server.admin.request("POST", "/accounts", { plan: "free", limits }), 400, "invalid_request", /limits/)
      for (const bad of [{ perMinute: 0, perDay: 10 }, { perMinute: 1.5, perDay: 10 }, { perMinute: 10 }, { perMinute: "10", perDay: 10 }]) {
        expectInvalid(yield* server.admin.request("POST", "/accounts", { plan: "enterprise", limits: bad }), "body limits")
      }
      expectInvalid(yield* server.admin.request("POST", "/accounts", { plan: "gold" }), "body plan")
      expectInvalid(yield* server.admin.request("POST", "/accounts"), "body plan")
      expectError(
        yield* server.request("POST", "/admin/v1/accounts", { key: ADMIN_TOKEN, raw: "{\"plan\":", headers: { "content-type": "application/json" } }),
        400,
        "invalid_json"
      )
    }))

  it.effect("keys: created (201, shown once), listed as metadata only (200), revoked (204, refused at once)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const account = yield* server.admin.createAccount()
      const created = expectStatus(yield* server.admin.request("POST", `/accounts/${account.id}/keys`, {}), 201)
      expectAdminHeaders(created)
      expect(Object.keys(created.body).sort()).toEqual(["expiresAt", "id", "key", "prefix"])
      expect(created.body).toMatchObject({ expiresAt: null, prefix: created.body.key.slice(0, 13) })
      expect(created.body.key).toMatch(LIVE_KEY)
      expect(created.body.key).not.toBe(account.key)
      expectStatus(yield* server.get("/v1/pets", created.body.key), 200)
      // a body is optional where every field is
      const bodyless = expectStatus(yield* server.admin.request("POST", `/accounts/${account.id}/keys`), 201)

      const listed = expectStatus(yield* server.admin.listKeys(account.id), 200)
      expectAdminHeaders(listed)
      expect(listed.body.map((k: { id: string }) => k.id).sort()).toEqual([account.keyId, created.body.id, bodyless.body.id].sort())
      for (const key of listed.body) {
        expect(Object.keys(key).sort()).toEqual(KEY_METADATA)
        expect(key.state).toBe("active")
        expect(key.prefix).toHaveLength(13)
      }
      for (const secret of [account.key, created.body.key, bodyless.body.key]) expect(listed.text).not.toContain(secret)

      const revoked = expectStatus(yield* server.admin.request("DELETE", `/keys/${created.body.id}`), 204)
      expect(revoked.text).toBe("")
      expectUnauthorized(yield* server.get("/v1/pets", created.body.key))
      expectStatus(yield* server.get("/v1/pets", account.key), 200)
      const after = expectStatus(yield* server.admin.listKeys(account.id), 200)
      const entry = after.body.find((k: { id: string }) => k.id === created.body.id)
      expect(entry.state).toBe("revoked")
      expect(Date.parse(entry.revokedAt)).not.toBeNaN()
      expect(after.text).not.toContain(created.body.key)
    }))

  it.effect("unknown accounts and keys are 404; invalid input is 400", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const account = yield* server.admin.createAccount()
      expectError(yield* server.admin.request("POST", "/accounts/acc_missing/keys", {}), 404, "not_found")
      expectError(yield* server.admin.listKeys("acc_missing"), 404, "not_found")
      expectError(yield* server.admin.request("POST", "/keys/key_missing/rotate", {}), 404, "not_found")
      expectError(yield* server.admin.request("DELETE", "/keys/key_missing"), 404, "not_found")
      expectInvalid(yield* server.admin.request("POST", `/accounts/${account.id}/keys`, { expiresAt: "tomorrow" }), "body expiresAt")
      for (const expiresAt of ["2030-02-30T00:00:00Z", "2029-02-29T00:00:00Z", "2030-13-01T00:00:00Z", "2030-01-01T24:00:00Z", "2030-01-01T00:00:00+24:00"]) {
        expectInvalid(yield* server.admin.request("POST", `/accounts/${account.id}/keys`, { expiresAt }), "body expiresAt")
      }
      // An expiry already past (or now) would issue a key that never works: refused, nothing issued.
      const keysBefore = (yield* server.admin.listKeys(account.id)).body.length
      for (const expiresAt of ["2020-01-01T00:00:00Z", new Date(Date.now() - 1_000).toISOString()]) {
        const past = expectInvalid(yield* server.admin.request("POST", `/accounts/${account.id}/keys`, { expiresAt }), "body expiresAt")
        expect(past.body.message).toMatch(/is not in the future/)
      }
      expect((yield* server.admin.listKeys(account.id)).body).toHaveLength(keysBefore)
      const leapDay = yield* server.admin.createKey(account.id, "2028-02-29T23:59:59+01:00")
      expect(leapDay.expiresAt).toBe("2028-02-29T22:59:59.000Z")
      for (const graceSeconds of [-1, 1.5, 2_592_001, "60"]) {
        expectInvalid(yield* server.admin.request("POST", `/keys/${account.keyId}/rotate`, { graceSeconds }), "body graceSeconds")
      }
      expectInvalid(yield* server.admin.listKeys("not%20an%20id"), "path parameter accountId")
      expectError(yield* server.admin.request("GET", "/nothing"), 404, "not_found")
      const wrongMethod = expectError(yield* server.admin.request("PUT", "/accounts"), 405, "method_not_allowed")
      expect(wrongMethod.headers.get("allow")).toBe("POST, GET, HEAD")
      // a revoked key cannot be rotated
      yield* server.admin.revokeKey(account.keyId)
      expectError(yield* server.admin.request("POST", `/keys/${account.keyId}/rotate`, {}), 404, "not_found")
    }))
})

it.effect("rotation: 201 with a new key; the old one works for the grace period, then is refused", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ frozenAt: T })
    const account = yield* server.admin.createAccount()
    const reply = expectStatus(yield* server.admin.request("POST", `/keys/${account.keyId}/rotate`, { graceSeconds: 3600 }), 201)
    expectAdminHeaders(reply)
    expect(reply.body.key).toMatch(LIVE_KEY)
    expect(reply.body.id).not.toBe(account.keyId)
    server.clock.setTime(T + 3_600_000 - 1)
    expectStatus(yield* server.get("/v1/pets", account.key), 200)
    expectStatus(yield* server.get("/v1/pets", reply.body.key), 200)
    const during = expectStatus(yield* server.admin.listKeys(account.id), 200)
    expect(during.body.find((k: { id: string }) => k.id === account.keyId)).toMatchObject({
      state: "active",
      expiresAt: new Date(T + 3_600_000).toISOString(),
      rotatedTo: reply.body.id
    })
    expect(during.body.find((k: { id: string }) => k.id === reply.body.id)).toMatchObject({ state: "active", rotatedTo: null })
    server.clock.setTime(T + 3_600_000)
    expectUnauthorized(yield* server.get("/v1/pets", account.key))
    expectStatus(yield* server.get("/v1/pets", reply.body.key), 200)
    const after = expectStatus(yield* server.admin.listKeys(account.id), 200)
    expect(after.body.find((k: { id: string }) => k.id === account.keyId).state).toBe("expired")
    for (const secret of [account.key, reply.body.key]) expect(after.text).not.toContain(secret)
  }))

it.effect("a key is rotated once: again, during its grace or after, 409 key_already_rotated naming the successor, and nothing issued", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ frozenAt: T })
    const account = yield* server.admin.createAccount()
    const successor = yield* server.admin.rotateKey(account.keyId, 3600)
    const keysBefore = expectStatus(yield* server.admin.listKeys(account.id), 200).body
    const expectRefused = (reply: Reply) => {
      expectError(reply, 409, "key_already_rotated", new RegExp(`"${account.keyId}" was already rotated: its successor is "${successor.id}"`))
      expectAdminHeaders(reply)
      expect(reply.text).not.toMatch(/psk_/)
    }
    // During the grace period: the old key still works, and is not rotated again.
    server.clock.setTime(T + 60_000)
    expectStatus(yield* server.get("/v1/pets", account.key), 200)
    for (const body of [{}, { graceSeconds: 0 }, { graceSeconds: 86_400 }]) {
      expectRefused(yield* server.admin.request("POST", `/keys/${account.keyId}/rotate`, body))
    }
    expect(expectStatus(yield* server.admin.listKeys(account.id), 200).body).toStrictEqual(keysBefore)
    expectStatus(yield* server.get("/v1/pets", account.key), 200) // the grace was not shortened
    // After it, the answer is the same (not 404): the key has a successor.
    server.clock.setTime(T + 3_600_000)
    expectUnauthorized(yield* server.get("/v1/pets", account.key))
    expectRefused(yield* server.admin.request("POST", `/keys/${account.keyId}/rotate`, {}))
    // The successor is the key to rotate.
    const third = yield* server.admin.rotateKey(successor.id)
    expectStatus(yield* server.get("/v1/pets", third.key), 200)
    expectUnauthorized(yield* server.get("/v1/pets", successor.key))
    expect(expectStatus(yield* server.admin.listKeys(account.id), 200).body).toHaveLength(3)
  }))

it("the admin API's definition lists 409 key_already_rotated on rotateKey, and the Error body's codes include it", () => {
  const spec = OpenApi.fromApi(AdminApi)
  const rotate = spec.paths["/admin/v1/keys/{keyId}/rotate"]?.post
  expect(Object.keys(rotate?.responses ?? {}).sort()).toEqual(["201", "400", "401", "404", "409", "503"])
  expect(rotate?.responses["409"]?.description).toContain("key_already_rotated")
  expect(ERROR_CODES.key_already_rotated.status).toBe(409)
})

it.effect("a key with an expiry is `active` until then and `expired` after", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ frozenAt: T })
    const account = yield* server.admin.createAccount()
    const key = yield* server.admin.createKey(account.id, new Date(T + 60_000).toISOString())
    const stateOf = Effect.map(
      server.admin.listKeys(account.id),
      (reply) => reply.body.find((k: { id: string }) => k.id === key.id).state
    )
    expect(yield* stateOf).toBe("active")
    server.clock.setTime(T + 60_000)
    expect(yield* stateOf).toBe("expired")
    expectUnauthorized(yield* server.get("/v1/pets", key.key))
  }))

it.effect("a staging server issues `psk_test_` keys", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ environment: "staging" })
    const account = yield* server.admin.createAccount("pro")
    expect(account.key).toMatch(/^psk_test_[0-9A-Za-z]{32}$/)
    expect((yield* server.admin.createKey(account.id)).key).toMatch(/^psk_test_[0-9A-Za-z]{32}$/)
    expectStatus(yield* server.get("/v1/pets", account.key), 200)
  }))

it.effect("failed admin tokens are limited per address (20 a minute): past it, a request without the right token gets 429 until a token refills", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ frozenAt: T, quiet: true })
    const wrong = `Bearer ${ADMIN_TOKEN}-wrong`
    for (let i = 0; i < 20; i++) expectUnauthorized(yield* server.request("GET", "/admin/v1/accounts/acc_x/keys", { authorization: wrong }))
    const limited = expectError(yield* server.request("GET", "/admin/v1/accounts/acc_x/keys", { authorization: wrong }), 429, "rate_limited")
    expect(limited.headers.get("retry-after")).toBe("3")
    expectError(yield* server.request("GET", "/admin/v1/accounts/acc_x/keys"), 429, "rate_limited")
    // One failure's worth refills in 3 s (20 a minute).
    server.clock.adjust(3_000)
    expectUnauthorized(yield* server.request("GET", "/admin/v1/accounts/acc_x/keys", { authorization: wrong }))
    expectError(yield* server.request("GET", "/admin/v1/accounts/acc_x/keys", { authorization: wrong }), 429, "rate_limited")
  }))

it.effect("the right admin token is always accepted: neither counted as a failure nor refused while its address is limited", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ frozenAt: T, quiet: true })
    const right = { authorization: `Bearer ${ADMIN_TOKEN}`, json: { plan: "free" } }
    // Right tokens cost nothing: 30 of them leave all 20 failures to a guesser.
    for (let i = 0; i < 30; i++) expectStatus(yield* server.request("POST", "/admin/v1/accounts", right), 201)
    // Wrong tokens of every length, shorter, longer or equal to the right one's.
    const wrongs = [`Bearer ${ADMIN_TOKEN}-wrong`, `Bearer ${ADMIN_TOKEN.slice(0, -1)}X`, "Bearer x", `Bearer ${"a".repeat(4_000)}`]
    for (let i = 0; i < 20; i++) {
      expectUnauthorized(yield* server.request("GET", "/admin/v1/accounts/acc_x/keys", { authorization: wrongs[i % wrongs.length] }))
    }
    expectError(yield* server.request("GET", "/admin/v1/accounts/acc_x/keys", { authorization: wrongs[0] }), 429, "rate_limited")
    // An operator sharing the guesser's address (one proxy in front of both) still gets in, at once.
    expectStatus(yield* server.request("POST", "/admin/v1/accounts", right), 201)
    expectError(yield* server.request("GET", "/admin/v1/accounts/acc_x/keys", { authorization: wrongs[1] }), 429, "rate_limited")
  }))


it.effect("failed admin tokens from one IPv6 /64 share one limit, whichever address of it they come from", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ frozenAt: T, trustProxy: 1, quiet: true })
    const wrong = (address: string) =>
      server.request("GET", "/admin/v1/accounts/acc_x/keys", { authorization: `Bearer ${ADMIN_TOKEN}-wrong`, headers: { "x-forwarded-for": address } })
    for (let i = 1; i <= 20; i++) expectUnauthorized(yield* wrong(`2001:db8:5:6::${i}`))
    expectError(yield* wrong("2001:db8:5:6:ffff::1"), 429, "rate_limited")
    expectUnauthorized(yield* wrong("2001:db8:5:7::1"))
  }))
