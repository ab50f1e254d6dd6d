import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import { expectError, expectRateLimitHeaders, expectStatus, remainingOf } from "./support/Expectations.js"
import { type Reply, TestServer } from "./support/TestServer.js"

const DAY = 24 * 60 * 60 * 1000

let keys = 0
/** A key no other test uses. */
const newKey = () => `key-${process.pid}-${++keys}-${Math.random().toString(36).slice(2)}`

layer(TestServer.layer(), { excludeTestServices: true })("HTTP Idempotency-Key", (it) => {
  const account = (perMinute = 1_000_000) =>
    Effect.flatMap(TestServer, (server) => Effect.map(server.enterprise(perMinute), ({ key }) => ({ server, key })))
  const keyed = (server: TestServer["Service"], path: string, json: unknown, key: string, idempotencyKey: string) =>
    server.request("POST", path, { key, json, headers: { "idempotency-key": idempotencyKey } })
  const petCount = (server: TestServer["Service"], key: string) =>
    Effect.map(server.get("/v1/pets?limit=100", key), (reply) => (expectStatus(reply, 200).body as Array<unknown>).length)

  it.effect("a retry with the same key and body gets the first 201 again (body, Location), marked replayed, and creates nothing", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account(100)
      const k = newKey()
      const first = expectStatus(yield* keyed(server, "/v1/pets", { name: "Rex", categoryId: 3 }, key, k), 201)
      expect(first.headers.get("idempotent-replayed")).toBeNull()
      const before = yield* petCount(server, key)
      // Fields reordered, and a field the operation ignores: the same request.
      const again = expectStatus(yield* keyed(server, "/v1/pets", { id: 99, categoryId: 3, name: "Rex" }, key, k), 201)
      expect(again.text).toBe(first.text)
      expect(again.headers.get("location")).toBe(first.headers.get("location"))
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      // The rate-limit headers are this request's own, not the first's.
      expectRateLimitHeaders(again)
      expect(remainingOf(again, "minute")).toBeLessThan(remainingOf(first, "minute"))
      expect(yield* petCount(server, key)).toBe(before)
    }))

  it.effect("a request with two Idempotency-Key fields is 400 invalid_idempotency_key and creates nothing", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account()
      const before = yield* petCount(server, key)
      const reply = yield* Effect.promise(() =>
        new Promise<{ status: number; body: any }>((resolve, reject) => {
          // node:http sends each pair of a header array as a field of its own.
          const req = Http.request(`${server.url}/v1/pets`, {
            method: "POST",
            headers: ["Host", new URL(server.url).host, "Authorization", `Bearer ${key}`, "Content-Type", "application/json", "Idempotency-Key", newKey(), "Idempotency-Key", newKey()]
          }, (res) => {
            let text = ""
            res.on("data", (chunk) => (text += chunk))
            res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }))
          })
          req.on("error", reject)
          req.end(JSON.stringify({ name: "Twice", categoryId: 1 }))
        })
      )
      expect(reply).toStrictEqual({ status: 400, body: { code: "invalid_idempotency_key", message: expect.stringMatching(/one Idempotency-Key field/), status: 400 } })
      expect(yield* petCount(server, key)).toBe(before)
    }))

  it.effect("the quoted form of a key names the same key as the bare form", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account()
      const k = newKey()
      const first = expectStatus(yield* keyed(server, "/v1/pets", { name: "Tom", categoryId: 1 }, key, k), 201)
      const quoted = expectStatus(yield* keyed(server, "/v1/pets", { name: "Tom", categoryId: 1 }, key, `"${k}"`), 201)
      expect(quoted.text).toBe(first.text)
      expect(quoted.headers.get("idempotent-replayed")).toBe("true")
    }))

  it.effect("a message's retry gets its first 202 (queued) again, even once it is delivered, and queues nothing", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account()
      const k = newKey()
      const first = expectStatus(yield* keyed(server, "/v1/messages", { message: "hello" }, key, k), 202)
      expect(first.body.status).toBe("queued")
      let status = "queued"
      for (let i = 0; i < 500 && status !== "delivered"; i++) {
        status = (yield* server.get(first.headers.get("location")!, key)).body.status
        if (status !== "delivered") yield* Effect.sleep("10 millis")
      }
      expect(status).toBe("delivered")
      const again = expectStatus(yield* keyed(server, "/v1/messages", { message: "hello" }, key, k), 202)
      expect(again.text).toBe(first.text)
      expect(again.headers.get("location")).toBe(first.headers.get("location"))
      expect(again.headers.get("idempotent-replayed")).toBe("true")
    }))

  it.effect("422 idempotency_key_reused for another body or the other operation; nothing is created; another account's key is its own", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account()
      const other = yield* account()
      const k = newKey()
      expectStatus(yield* keyed(server, "/v1/pets", { name: "Rex", categoryId: 3 }, key, k), 201)
      const before = yield* petCount(server, key)
      expectError(yield* keyed(server, "/v1/pets", { name: "Rex", categoryId: 4 }, key, k), 422, "idempotency_key_reused")
      expectError(yield* keyed(server, "/v1/pets", { name: "Rex", categoryId: 3, status: "sold" }, key, k), 422, "idempotency_key_reused")
      expectError(yield* keyed(server, "/v1/messages", { message: "Rex" }, key, k), 422, "idempotency_key_reused")
      expect(yield* petCount(server, key)).toBe(before)
      const theirs = expectStatus(yield* keyed(server, "/v1/pets", { name: "Rex", categoryId: 4 }, other.key, k), 201)
      expect(theirs.headers.get("idempotent-replayed")).toBeNull()
    }))

  it.effect("400 invalid_idempotency_key for an empty, too long, non-ASCII or malformed key; nothing is created", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account()
      const before = yield* petCount(server, key)
      for (const bad of ["", "\"\"", "k".repeat(256), `"${"k".repeat(256)}"`, "a\tb", "clé", "\"open", "a\"b", "\"a\\nb\""]) {
        const reply = yield* keyed(server, "/v1/pets", { name: "Rex", categoryId: 3 }, key, bad)
        expectError(reply, 400, "invalid_idempotency_key")
        expectRateLimitHeaders(reply)
      }
      expectError(yield* keyed(server, "/v1/messages", { message: "hi" }, key, "k".repeat(256)), 400, "invalid_idempotency_key")
      expectStatus(yield* keyed(server, "/v1/pets", { name: "Rex", categoryId: 3 }, key, "k".repeat(255)), 201)
      expect(yield* petCount(server, key)).toBe(before + 1)
    }))

  it.effect("answers before the operation are not kept: after a 400, 401 or 413 the same key creates", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account()
      const k = newKey()
      expectError(yield* keyed(server, "/v1/pets", { name: "", categoryId: 3 }, key, k), 400, "invalid_request")
      expectError(yield* keyed(server, "/v1/pets", { name: "Rex", categoryId: 3 }, "psk_live_" + "Z".repeat(32), k), 401, "unauthorized")
      const big = yield* server.request("POST", "/v1/pets", {
        key,
        raw: JSON.stringify({ name: "Rex", categoryId: 3, pad: "x".repeat(2 * 1024 * 1024) }),
        headers: { "content-type": "application/json", "idempotency-key": k }
      })
      expectError(big, 413, "payload_too_large")
      const created = expectStatus(yield* keyed(server, "/v1/pets", { name: "Rex", categoryId: 3 }, key, k), 201)
      expect(created.headers.get("idempotent-replayed")).toBeNull()
    }))

  it.effect("a 429 is not kept, and a replay passes the limiter like any request", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account(2)
      const k = newKey()
      const pet = { name: "Limited", categoryId: 5 }
      const first = expectStatus(yield* keyed(server, "/v1/pets", pet, key, k), 201)
      expectStatus(yield* keyed(server, "/v1/pets", pet, key, k), 201)
      // The replay cost a request: the third is refused, and that refusal is not the key's answer.
      expectError(yield* keyed(server, "/v1/pets", pet, key, k), 429, "rate_limited")
      const fresh = newKey()
      expectError(yield* keyed(server, "/v1/pets", pet, key, fresh), 429, "rate_limited")
      server.clock.adjust(61_000)
      const replay = expectStatus(yield* keyed(server, "/v1/pets", pet, key, k), 201)
      expect(replay.text).toBe(first.text)
      const created = expectStatus(yield* keyed(server, "/v1/pets", pet, key, fresh), 201)
      expect(created.headers.get("idempotent-replayed")).toBeNull()
      expect(created.body.id).not.toBe(first.body.id)
    }))

  it.effect("twenty concurrent requests with one key create one pet: each answer is its 201 or a 409 with Retry-After", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account()
      const k = newKey()
      const before = yield* petCount(server, key)
      const replies: ReadonlyArray<Reply> = yield* Effect.all(
        Array.from({ length: 20 }, () => keyed(server, "/v1/pets", { name: "Twin", categoryId: 7 }, key, k)),
        { concurrency: "unbounded" }
      )
      expect(yield* petCount(server, key)).toBe(before + 1)
      const created = replies.filter((r) => r.status === 201)
      expect(created.length).toBeGreaterThanOrEqual(1)
      for (const reply of created) expect(reply.text).toBe(created[0]!.text)
      expect(created.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1)
      for (const reply of replies.filter((r) => r.status !== 201)) {
        expectError(reply, 409, "idempotency_key_in_use")
        expect(Number(reply.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      }
      const settled = expectStatus(yield* keyed(server, "/v1/pets", { name: "Twin", categoryId: 7 }, key, k), 201)
      expect(settled.text).toBe(created[0]!.text)
    }))

  it.effect("a key is kept 24 hours: just before it replays, after it is a new request", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account()
      const k = newKey()
      const first = expectStatus(yield* keyed(server, "/v1/pets", { name: "Old", categoryId: 2 }, key, k), 201)
      server.clock.adjust(DAY - 60_000)
      expect(expectStatus(yield* keyed(server, "/v1/pets", { name: "Old", categoryId: 2 }, key, k), 201).text).toBe(first.text)
      server.clock.adjust(60_001)
      const again = expectStatus(yield* keyed(server, "/v1/pets", { name: "New", categoryId: 2 }, key, k), 201)
      expect(again.headers.get("idempotent-replayed")).toBeNull()
      expect(again.body.id).toBeGreaterThan(first.body.id)
    }))
})
