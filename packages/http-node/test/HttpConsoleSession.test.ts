import { expect, it } from "@effect/vitest"
import { ConsoleSessionStore } from "@petstore/core"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import * as ConsoleBuild from "./support/ConsoleBuild.js"
import { cookieOf, signIn } from "./support/ConsoleSession.js"
import { expectError, expectStatus } from "./support/Expectations.js"
import { ADMIN_TOKEN, TestServer, type TestServerOptions } from "./support/TestServer.js"

const build = ConsoleBuild.make()
const HOUR = 3_600_000

const start = (options: TestServerOptions = {}, sessionHours?: number) =>
  TestServer.start({ console: { directory: build.directory, sessionHours }, ...options })

it.effect("sign-in with the right token: 200 {csrfToken, expiresAt} and an HttpOnly, SameSite=Strict cookie for the session's life", () =>
  Effect.gen(function*() {
    const server = yield* start({ frozenAt: Date.UTC(2030, 0, 1, 8) }, 2)
    const { reply } = yield* signIn(server)
    expect(Object.keys(reply.body).sort()).toEqual(["csrfToken", "expiresAt"])
    expect(reply.body.expiresAt).toBe("2030-01-01T10:00:00.000Z")
    expect(reply.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(reply.headers.get("cache-control")).toBe("no-store")
    const cookie = cookieOf(reply)
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(cookie.attributes).toEqual(["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=7200"])
    // The token appears nowhere in the answer.
    expect(reply.text).not.toContain(ADMIN_TOKEN)
    expect(reply.headers.get("set-cookie")).not.toContain(ADMIN_TOKEN)
    // Each sign-in is a new session.
    expect((yield* signIn(server)).cookie).not.toBe(`petstore_console=${cookie.value}`)
    // A form post: 303 to the console, the same cookie.
    const form = yield* server.request("POST", "/console/session", {
      raw: `token=${encodeURIComponent(ADMIN_TOKEN)}`,
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expectStatus(form, 303)
    expect(form.headers.get("location")).toBe("/console")
    expect(cookieOf(form).attributes).toEqual(["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=7200"])
    expectError(yield* server.request("POST", "/console/session", { json: {} }), 400, "invalid_request")
  }))

it.effect("the cookie is Secure only when a trusted proxy says the request came over HTTPS", () =>
  Effect.gen(function*() {
    const https = { "x-forwarded-proto": "https" }
    const direct = yield* start()
    expect(cookieOf((yield* signIn(direct, https)).reply).attributes).not.toContain("Secure")
    const proxied = yield* start({ trustProxy: 1 })
    expect(cookieOf((yield* signIn(proxied, https)).reply).attributes).toContain("Secure")
    expect(cookieOf((yield* signIn(proxied, { "x-forwarded-proto": "http" })).reply).attributes).not.toContain("Secure")
    expect(cookieOf((yield* signIn(proxied)).reply).attributes).not.toContain("Secure")
  }))

it.effect("wrong tokens are 401 and count against the admin limit: past 20 a minute, 429 with Retry-After, and the right token still signs in", () =>
  Effect.gen(function*() {
    const server = yield* start({ frozenAt: Date.UTC(2030, 0, 1, 8) })
    const wrong = () => server.request("POST", "/console/session", { json: { token: `${ADMIN_TOKEN}x` } })
    for (let i = 0; i < 20; i++) expectError(yield* wrong(), 401, "unauthorized", /Wrong admin token/)
    const limited = expectError(yield* wrong(), 429, "rate_limited")
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    // One limit for the admin API and the sign-in: a wrong bearer token is refused 429 too.
    expectError(yield* server.request("GET", "/admin/v1/usage/top", { authorization: "Bearer wrong-token-0000000000" }), 429, "rate_limited")
    yield* signIn(server)
  }))

it.effect("a sign-in from a page of another origin is 403 forbidden_origin", () =>
  Effect.gen(function*() {
    const server = yield* start()
    for (const headers of [{ origin: "http://evil.example" }, { "sec-fetch-site": "cross-site" }, { origin: server.url.replace("127.0.0.1", "localhost") }]) {
      const reply = yield* server.request("POST", "/console/session", { json: { token: ADMIN_TOKEN }, headers })
      expectError(reply, 403, "forbidden_origin")
      expect(reply.headers.get("set-cookie")).toBeNull()
    }
    yield* signIn(server, { origin: server.url, "sec-fetch-site": "same-origin" })
  }))

it.effect("the admin API takes the cookie with the CSRF token from the same origin; 401 without or with a wrong CSRF token; 403 cross-origin", () =>
  Effect.gen(function*() {
    const server = yield* start()
    const { cookie, csrf } = yield* signIn(server)
    const same = { cookie, "x-csrf-token": csrf }
    // Reads: the Origin browsers omit, or their Sec-Fetch-Site: same-origin.
    expectStatus(yield* server.request("GET", "/admin/v1/usage/top", { headers: same }), 404) // no usage counted: the route answered
    expectStatus(yield* server.request("GET", "/admin/v1/accounts/acc_none/keys", { headers: { ...same, "sec-fetch-site": "same-origin" } }), 404)
    // Writes carry Origin.
    const created = expectStatus(yield* server.request("POST", "/admin/v1/accounts", { json: { plan: "free" }, headers: { ...same, origin: server.url } }), 201)
    expect(created.headers.get("cache-control")).toBe("no-store")
    expectError(yield* server.request("GET", `/admin/v1/accounts/${created.body.id}/keys`, { headers: { cookie } }), 401, "unauthorized", /CSRF/)
    expectError(yield* server.request("GET", `/admin/v1/accounts/${created.body.id}/keys`, { headers: { cookie, "x-csrf-token": `${csrf.slice(1)}A` } }), 401, "unauthorized")
    for (const cross of [{ origin: "http://evil.example" }, { "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }]) {
      expectError(yield* server.request("POST", "/admin/v1/accounts", { json: { plan: "free" }, headers: { ...same, ...cross } }), 403, "forbidden_origin")
    }
    // A write without Origin is not known to be same-origin.
    expectError(yield* server.request("POST", "/admin/v1/accounts", { json: { plan: "free" }, headers: same }), 403, "forbidden_origin")
    // The bearer token works as before, whatever the cookie.
    expectStatus(yield* server.request("POST", "/admin/v1/accounts", { key: ADMIN_TOKEN, json: { plan: "free" }, headers: { cookie } }), 201)
    // A cookie that names no session: refused at the session lookup, even with the CSRF token computed for it.
    const madeUp = "A".repeat(43)
    expectError(yield* server.request("GET", "/console/session", { headers: { cookie: `petstore_console=${madeUp}` } }), 401, "unauthorized")
    const madeUpCsrf = createHmac("sha256", createHmac("sha256", ADMIN_TOKEN).update("petstore console csrf").digest()).update(madeUp).digest("base64url")
    expectError(
      yield* server.request("GET", "/admin/v1/usage/top", { headers: { cookie: `petstore_console=${madeUp}`, "x-csrf-token": madeUpCsrf } }),
      401,
      "unauthorized",
      /sign in again/
    )
  }))

it.effect("GET /console/session gives the session's CSRF token back; sign-out ends it, clears the cookie, and the old cookie is refused", () =>
  Effect.gen(function*() {
    const server = yield* start()
    const { cookie, csrf, reply } = yield* signIn(server)
    const read = expectStatus(yield* server.request("GET", "/console/session", { headers: { cookie } }), 200)
    expect(read.body).toEqual(reply.body)
    expectError(yield* server.request("GET", "/console/session"), 401, "unauthorized")
    expectError(yield* server.request("GET", "/console/session", { headers: { cookie, origin: "http://evil.example" } }), 403, "forbidden_origin")
    // Sign-out needs the CSRF token and the same origin.
    expectError(yield* server.request("DELETE", "/console/session", { headers: { cookie, origin: server.url } }), 401, "unauthorized")
    expectError(yield* server.request("DELETE", "/console/session", { headers: { cookie, "x-csrf-token": csrf, origin: "http://evil.example" } }), 403, "forbidden_origin")
    const out = expectStatus(yield* server.request("DELETE", "/console/session", { headers: { cookie, "x-csrf-token": csrf, origin: server.url } }), 204)
    expect(cookieOf(out)).toEqual({ value: "", attributes: ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=0"] })
    expectError(yield* server.request("GET", "/console/session", { headers: { cookie } }), 401, "unauthorized")
    expectError(yield* server.request("GET", "/admin/v1/usage/top", { headers: { cookie, "x-csrf-token": csrf } }), 401, "unauthorized", /sign in again/)
    expectError(yield* server.request("PUT", "/console/session", { headers: { cookie } }), 405, "method_not_allowed")
  }))

it.effect("a session ends after PETSTORE_CONSOLE_SESSION_HOURS: accepted until then, refused from then on", () =>
  Effect.gen(function*() {
    const server = yield* start({ frozenAt: Date.UTC(2030, 0, 1, 8) }, 1)
    const { cookie, csrf } = yield* signIn(server)
    const headers = { cookie, "x-csrf-token": csrf, origin: server.url }
    server.clock.adjust(HOUR - 1)
    expectStatus(yield* server.request("POST", "/admin/v1/accounts", { json: { plan: "free" }, headers }), 201)
    expectStatus(yield* server.request("GET", "/console/session", { headers }), 200)
    server.clock.adjust(1)
    expectError(yield* server.request("POST", "/admin/v1/accounts", { json: { plan: "free" }, headers }), 401, "unauthorized")
    expectError(yield* server.request("GET", "/console/session", { headers }), 401, "unauthorized")
  }))

it.effect("a new admin token ends every session: a server on the same store with another token refuses the old cookie", () =>
  Effect.gen(function*() {
    const consoleSessions = ConsoleSessionStore.makeMemory()
    const before = yield* start({ consoleSessions })
    const { cookie, csrf } = yield* signIn(before)
    expectStatus(yield* before.request("GET", "/console/session", { headers: { cookie } }), 200)
    // The same store, the token changed: the old cookie names no session, and no CSRF token is given for it.
    const after = yield* start({ consoleSessions, adminToken: `${ADMIN_TOKEN}-new` })
    const read = expectError(yield* after.request("GET", "/console/session", { headers: { cookie } }), 401, "unauthorized")
    expect(read.text).not.toContain(csrf)
    expectError(yield* after.request("GET", "/admin/v1/usage/top", { headers: { cookie, "x-csrf-token": csrf } }), 401, "unauthorized")
    // The server with the old token still finds it (the store holds it until it ends).
    expectStatus(yield* before.request("GET", "/console/session", { headers: { cookie } }), 200)
  }))

it.effect("a sign-in with a cookie naming a live session ends that session", () =>
  Effect.gen(function*() {
    const server = yield* start()
    const old = yield* signIn(server)
    const renewed = yield* signIn(server, { cookie: old.cookie })
    expectError(yield* server.request("GET", "/console/session", { headers: { cookie: old.cookie } }), 401, "unauthorized")
    expectError(yield* server.request("GET", "/admin/v1/usage/top", { headers: { cookie: old.cookie, "x-csrf-token": old.csrf } }), 401, "unauthorized")
    expectStatus(yield* server.request("GET", "/console/session", { headers: { cookie: renewed.cookie } }), 200)
  }))

it.effect("behind a TLS-terminating proxy not trusted: Sec-Fetch-Site decides, and without it Origin is compared by host and port", () =>
  Effect.gen(function*() {
    const server = yield* start()
    const { cookie, csrf } = yield* signIn(server)
    const same = { cookie, "x-csrf-token": csrf }
    const https = server.url.replace("http://", "https://")
    const write = (headers: Record<string, string>) =>
      server.request("POST", "/admin/v1/accounts", { json: { plan: "free" }, headers: { ...same, ...headers } })
    // The browser saw https://<host>; the server, behind a proxy it does not trust, sees http.
    expectStatus(yield* write({ origin: https, "sec-fetch-site": "same-origin" }), 201)
    expectStatus(yield* write({ origin: https }), 201)
    // Sec-Fetch-Site decides when sent, whatever Origin says.
    for (const site of ["cross-site", "same-site", "none"]) {
      expectError(yield* write({ origin: https, "sec-fetch-site": site }), 403, "forbidden_origin")
    }
    expectError(yield* write({ origin: "http://evil.example", "sec-fetch-site": "cross-site" }), 403, "forbidden_origin")
    // Without it: another host, or another port, is refused.
    expectError(yield* write({ origin: "https://evil.example" }), 403, "forbidden_origin")
    expectError(yield* write({ origin: server.url.replace("127.0.0.1", "localhost") }), 403, "forbidden_origin")
    expectError(yield* write({ origin: "https://127.0.0.1" }), 403, "forbidden_origin")
    // A read typed by the user (none) is same-origin; the sign-in and sign-out follow the same rule.
    expectStatus(yield* server.request("GET", "/console/session", { headers: { cookie, "sec-fetch-site": "none" } }), 200)
    yield* signIn(server, { origin: https, "sec-fetch-site": "same-origin" })
    expectError(yield* server.request("POST", "/console/session", { json: { token: ADMIN_TOKEN }, headers: { origin: https, "sec-fetch-site": "cross-site" } }), 403, "forbidden_origin")
    expectStatus(yield* server.request("DELETE", "/console/session", { headers: { ...same, origin: https } }), 204)
  }))

it.effect("with trusted proxies, X-Forwarded-Proto with fewer entries than trusted proxies is not HTTPS (as X-Forwarded-For is read)", () =>
  Effect.gen(function*() {
    const server = yield* start({ trustProxy: 2 })
    // One entry for two trusted proxies: it may be the client's own.
    expect(cookieOf((yield* signIn(server, { "x-forwarded-proto": "https" })).reply).attributes).not.toContain("Secure")
    // The outer trusted proxy's entry (second from the right) decides.
    expect(cookieOf((yield* signIn(server, { "x-forwarded-proto": "https, http" })).reply).attributes).toContain("Secure")
    expect(cookieOf((yield* signIn(server, { "x-forwarded-proto": "http, https" })).reply).attributes).not.toContain("Secure")
    expect(cookieOf((yield* signIn(server, { "x-forwarded-proto": "https, https, http" })).reply).attributes).toContain("Secure")
  }))
