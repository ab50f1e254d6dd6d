import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, expectInvalid, expectRateLimitHeaders, expectStatus } from "./support/Expectations.js"
import { type Reply, TestServer } from "./support/TestServer.js"

const ACCOUNT_FIELDS = ["createdAt", "id", "keys", "limits", "name", "plan", "status", "webhook"]

/** The path and query of a `Link: <…>; rel="next"`, or undefined without one. */
const nextOf = (reply: Reply): string | undefined => {
  const link = reply.headers.get("link")
  if (link === null) return undefined
  const match = /^<([^>]+)>; rel="next"$/.exec(link)
  expect(match).not.toBeNull()
  return match![1]!.replace(/^\/admin\/v1/, "")
}

/** Every page of `path` followed through its `Link`s: the ids in order. */
const allPages = (server: TestServer["Service"], path: string) =>
  Effect.gen(function*() {
    const ids: Array<string> = []
    let next: string | undefined = path
    while (next !== undefined) {
      const reply = expectStatus(yield* server.admin.request("GET", next), 200)
      ids.push(...reply.body.map((a: { id: string }) => a.id))
      next = nextOf(reply)
    }
    return ids
  })

const named = (server: TestServer["Service"], plan: string, name: string | null, extra: object = {}) =>
  Effect.gen(function*() {
    const created = yield* server.admin.request("POST", "/accounts", { plan, ...extra })
    expectStatus(created, 201)
    if (name !== null) expectStatus(yield* server.admin.request("PATCH", `/accounts/${created.body.id}`, { name }), 200)
    return { id: created.body.id as string, key: created.body.key as string }
  })

it.effect("GET /admin/v1/accounts/{id}: the account object; 404 not_found for an unknown account", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start()
    const { id } = yield* named(server, "pro", null)
    expectStatus(yield* server.admin.request("POST", `/accounts/${id}/keys`, {}), 201)
    const keys = expectStatus(yield* server.admin.request("GET", `/accounts/${id}/keys`), 200).body
    expectStatus(yield* server.admin.request("DELETE", `/keys/${keys[0].id}`), 204)
    const reply = expectStatus(yield* server.admin.request("GET", `/accounts/${id}`), 200)
    expect(reply.headers.get("cache-control")).toBe("no-store")
    expect(Object.keys(reply.body).sort()).toStrictEqual(ACCOUNT_FIELDS)
    expect(reply.body).toMatchObject({ id, name: null, plan: "pro", limits: { perMinute: 300, perDay: 10_000 }, status: "active", keys: 2, webhook: false })
    expect(new Date(reply.body.createdAt).toISOString()).toBe(reply.body.createdAt)
    expectError(yield* server.admin.request("GET", "/accounts/acc_unknown"), 404, "not_found", /acc_unknown/)
    expectError(yield* server.admin.request("PATCH", "/accounts/acc_unknown", { status: "suspended" }), 404, "not_found")
  }))

it.effect("GET /admin/v1/accounts: newest first, paged by Link with the filters kept; an altered cursor is 400 invalid_cursor", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start()
    const made: Array<string> = []
    for (let i = 0; i < 7; i++) made.push((yield* named(server, i % 2 === 0 ? "free" : "pro", i === 3 ? "Acme Widgets" : null)).id)
    const listed = yield* allPages(server, "/accounts?limit=3")
    expect([...listed].sort()).toStrictEqual([...made].sort())
    const bodies = expectStatus(yield* server.admin.request("GET", "/accounts?limit=100"), 200).body as Array<{ id: string; createdAt: string }>
    expect(bodies.map((a) => a.id)).toStrictEqual(listed)
    for (let i = 1; i < bodies.length; i++) {
      const [a, b] = [bodies[i - 1]!, bodies[i]!]
      expect(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id)).toBe(true)
    }
    expect(expectStatus(yield* server.admin.request("GET", "/accounts"), 200).body).toHaveLength(7)

    const first = expectStatus(yield* server.admin.request("GET", "/accounts?limit=2&plan=free"), 200)
    expect(first.headers.get("link")).toMatch(/^<\/admin\/v1\/accounts\?limit=2&plan=free&cursor=[^>]+>; rel="next"$/)
    expect(yield* allPages(server, "/accounts?limit=2&plan=free")).toStrictEqual(listed.filter((id) => made.indexOf(id) % 2 === 0))
    expect(yield* allPages(server, "/accounts?plan=pro&limit=1")).toStrictEqual(listed.filter((id) => made.indexOf(id) % 2 === 1))

    const cursor = new URL(`http://x${nextOf(first)!}`).searchParams.get("cursor")!
    const altered = cursor.slice(0, 3) + (cursor[3] === "A" ? "B" : "A") + cursor.slice(4)
    expectError(yield* server.admin.request("GET", `/accounts?limit=2&plan=free&cursor=${altered}`), 400, "invalid_cursor")
    expectError(yield* server.admin.request("GET", `/accounts?limit=2&plan=free&cursor=${cursor}x`), 400, "invalid_cursor")
    // A cursor is bound to the filters it was issued for.
    expectError(yield* server.admin.request("GET", `/accounts?limit=2&plan=pro&cursor=${cursor}`), 400, "invalid_cursor")
    for (const bad of ["limit=0", "limit=101", "limit=x", "plan=gold", "status=closed", "q="]) {
      expectInvalid(yield* server.admin.request("GET", `/accounts?${bad}`), `query parameter ${bad.split("=")[0]}`)
    }
  }))

it.effect("GET /admin/v1/accounts: status and q (an id prefix, or a part of the name in either case) filter exactly", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start()
    const acme = yield* named(server, "free", "Acme Widgets")
    const other = yield* named(server, "business", "Blue Sky")
    const plain = yield* named(server, "free", null)
    expectStatus(yield* server.admin.request("PATCH", `/accounts/${other.id}`, { status: "suspended" }), 200)
    const ids = (path: string) => Effect.map(server.admin.request("GET", path), (r) => expectStatus(r, 200).body.map((a: { id: string }) => a.id))
    expect(yield* ids("/accounts?status=suspended")).toStrictEqual([other.id])
    expect(yield* ids("/accounts?status=active")).toStrictEqual([plain.id, acme.id])
    expect(yield* ids("/accounts?q=acme")).toStrictEqual([acme.id])
    expect(yield* ids("/accounts?q=WIDGET")).toStrictEqual([acme.id])
    expect(yield* ids("/accounts?q=s")).toStrictEqual([other.id, acme.id])
    expect(yield* ids(`/accounts?q=${plain.id.slice(0, 10)}`)).toContain(plain.id)
    expect(yield* ids(`/accounts?q=${plain.id}`)).toStrictEqual([plain.id])
    expect(yield* ids("/accounts?q=nobody")).toStrictEqual([])
    expect(yield* ids("/accounts?q=sky&status=active")).toStrictEqual([])
    expect(yield* ids("/accounts?q=sky&plan=business&status=suspended")).toStrictEqual([other.id])
  }))

it.effect("PATCH /admin/v1/accounts/{id}: name, plan and limits by the creation rules; the limiter uses the new plan at once", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start()
    const { id, key } = yield* named(server, "free", null)
    expect(expectRateLimitHeaders(yield* server.get("/v1/pets", key)).policy).toBe("\"minute\";q=60;w=60, \"day\";q=1000;w=86400")
    const renamed = expectStatus(yield* server.admin.request("PATCH", `/accounts/${id}`, { name: "Example Ltd" }), 200)
    expect(renamed.body).toMatchObject({ id, name: "Example Ltd", plan: "free", status: "active", keys: 1 })
    expect(expectStatus(yield* server.admin.request("PATCH", `/accounts/${id}`, { plan: "pro" }), 200).body)
      .toMatchObject({ name: "Example Ltd", plan: "pro", limits: { perMinute: 300, perDay: 10_000 } })
    expect(expectRateLimitHeaders(yield* server.get("/v1/pets", key)).policy).toBe("\"minute\";q=300;w=60, \"day\";q=10000;w=86400")
    const limits = { perMinute: 5_000, perDay: 2_000_000 }
    expectError(yield* server.admin.request("PATCH", `/accounts/${id}`, { plan: "enterprise" }), 400, "invalid_request", /limits/)
    expectError(yield* server.admin.request("PATCH", `/accounts/${id}`, { limits }), 400, "invalid_request", /limits/)
    expect(expectStatus(yield* server.admin.request("PATCH", `/accounts/${id}`, { plan: "enterprise", limits }), 200).body)
      .toMatchObject({ plan: "enterprise", limits })
    expect(expectRateLimitHeaders(yield* server.get("/v1/pets", key)).policy).toBe("\"minute\";q=5000;w=60, \"day\";q=2000000;w=86400")
    // An enterprise account takes new limits alone, and keeps its own when the plan is restated.
    const raised = { perMinute: 6_000, perDay: 3_000_000 }
    expect(expectStatus(yield* server.admin.request("PATCH", `/accounts/${id}`, { limits: raised }), 200).body).toMatchObject({ limits: raised })
    expect(expectStatus(yield* server.admin.request("PATCH", `/accounts/${id}`, { plan: "enterprise" }), 200).body).toMatchObject({ limits: raised })
    expectError(yield* server.admin.request("PATCH", `/accounts/${id}`, { plan: "free", limits }), 400, "invalid_request", /limits/)
    expect(expectStatus(yield* server.admin.request("PATCH", `/accounts/${id}`, { name: null, plan: "business" }), 200).body)
      .toMatchObject({ name: null, plan: "business", limits: { perMinute: 1_000, perDay: 100_000 } })
    for (
      const [body, field] of [
        [{ name: "" }, "body name"],
        [{ name: "x".repeat(201) }, "body name"],
        [{ name: 5 }, "body name"],
        [{ plan: "gold" }, "body plan"],
        [{ status: "closed" }, "body status"],
        [{ limits: { perMinute: 0, perDay: 1 } }, "body limits"]
      ] as const
    ) expectInvalid(yield* server.admin.request("PATCH", `/accounts/${id}`, body), field)
    // 200 characters, as JSON Schema's maxLength counts them (code points): 200 emoji are 400 UTF-16 units.
    const emoji = "\u{1F436}".repeat(200)
    expect(expectStatus(yield* server.admin.request("PATCH", `/accounts/${id}`, { name: emoji }), 200).body).toMatchObject({ name: emoji })
    expectInvalid(yield* server.admin.request("PATCH", `/accounts/${id}`, { name: `${emoji}x` }), "body name")
    expect(expectStatus(yield* server.admin.request("GET", `/accounts?q=${encodeURIComponent(emoji)}`), 200).body).toMatchObject([{ id }])
    expectInvalid(yield* server.admin.request("GET", `/accounts?q=${encodeURIComponent(`${emoji}x`)}`), "query parameter q")
    expectError(yield* server.admin.request("PATCH", `/accounts/${id}`, [1]), 400, "invalid_request")
    // An unknown field is treated as the creation treats it.
    const created = yield* server.admin.request("POST", "/accounts", { plan: "free", unknown: 1 })
    const patched = yield* server.admin.request("PATCH", `/accounts/${id}`, { unknown: 1 })
    expect(patched.status === 200).toBe(created.status === 201)
    expect(expectStatus(yield* server.admin.request("PATCH", `/accounts/${id}`, { name: "x".repeat(200) }), 200).body.name).toHaveLength(200)
  }))

it.effect("a suspended account's keys get 403 account_suspended without WWW-Authenticate on every /v1 request; resuming restores them", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start()
    const { id, key } = yield* named(server, "free", null)
    const second = expectStatus(yield* server.admin.request("POST", `/accounts/${id}/keys`, {}), 201).body.key as string
    const bystander = yield* named(server, "free", null)
    expectStatus(yield* server.get("/v1/pets", key), 200)
    expect(expectStatus(yield* server.admin.request("PATCH", `/accounts/${id}`, { status: "suspended" }), 200).body.status).toBe("suspended")
    for (const k of [key, second]) {
      for (const [method, path, json] of [["GET", "/v1/pets", undefined], ["GET", "/v1/usage", undefined], ["POST", "/v1/pets", { name: "Rex", categoryId: 1 }], ["POST", "/v1/messages", { message: "hi" }], ["GET", "/v1/pets/1", undefined]] as const) {
        const refused = expectError(yield* server.request(method, path, { key: k, json }), 403, "account_suspended", /suspended/)
        expect(refused.headers.has("www-authenticate")).toBe(false)
        expect(refused.headers.has("x-ratelimit-limit")).toBe(false)
        expect(refused.headers.has("x-request-id")).toBe(true)
      }
    }
    // Other accounts are served; the admin API still sees the account, and its keys stay listed.
    expectStatus(yield* server.get("/v1/pets", bystander.key), 200)
    expect(expectStatus(yield* server.admin.request("GET", `/accounts/${id}`), 200).body).toMatchObject({ status: "suspended", keys: 2 })
    expect(expectStatus(yield* server.admin.request("PATCH", `/accounts/${id}`, { status: "active" }), 200).body.status).toBe("active")
    expectStatus(yield* server.get("/v1/pets", key), 200)
    expectStatus(yield* server.get("/v1/pets", second), 200)
  }))
