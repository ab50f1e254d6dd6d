import { expect, it, layer } from "@effect/vitest"
import { MessageProcessor } from "@petstore/core"
import { Deferred, Effect } from "effect"
import { expectError, expectInvalid, expectRateLimitHeaders, expectStatus, expectUnauthorized } from "./support/Expectations.js"
import { type Reply, TestServer } from "./support/TestServer.js"

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

/** Reads `path` until the message reaches `status` (the worker runs on its own); fails if it never does. */
const awaitStatus = (server: TestServer["Service"], key: string, path: string, status: string) =>
  Effect.gen(function*() {
    let reply: Reply = yield* server.get(path, key)
    for (let i = 0; i < 1000 && reply.body?.status !== status; i++) {
      yield* Effect.sleep("20 millis")
      reply = yield* server.get(path, key)
    }
    expect(reply.body?.status, reply.text).toBe(status)
    return reply
  })

layer(TestServer.layer(), { excludeTestServices: true })("HTTP messages", (it) => {
  const account = Effect.flatMap(TestServer, (server) => Effect.map(server.enterprise(1_000_000), ({ key }) => ({ server, key })))

  it.effect("202 with the message `queued`, an ISO-8601 UTC `createdAt` and a Location; then it is `delivered`", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const before = Date.now()
      const reply = expectStatus(yield* server.post("/v1/messages", { message: "Hello, store" }, key), 202)
      expect(reply.headers.get("content-type")).toBe("application/json")
      expectRateLimitHeaders(reply)
      expect(Object.keys(reply.body).sort()).toEqual(["createdAt", "id", "message", "status"])
      expect(reply.body).toMatchObject({ message: "Hello, store", status: "queued" })
      expect(reply.body.id).toBeTypeOf("string")
      expect(reply.body.createdAt).toMatch(ISO_UTC)
      expect(Date.parse(reply.body.createdAt)).toBeGreaterThanOrEqual(before - 1)
      expect(Date.parse(reply.body.createdAt)).toBeLessThanOrEqual(Date.now() + 1)
      const location = reply.headers.get("location")!
      expect(location).toBe(`/v1/messages/${reply.body.id}`)
      const delivered = yield* awaitStatus(server, key, location, "delivered")
      // Reading it adds what came of the delivery: the attempts made, and when it was delivered.
      expect(delivered.body).toEqual({ ...reply.body, status: "delivered", attempts: 1, deliveredAt: expect.stringMatching(ISO_UTC) })
      expect(Date.parse(delivered.body.deliveredAt)).toBeGreaterThanOrEqual(Date.parse(reply.body.createdAt))
      expectRateLimitHeaders(delivered)
    }))

  it.effect("unknown fields are ignored; the text is echoed back exactly", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const text = "  émoji 🐶 \n\"quoted\"  "
      const reply = expectStatus(yield* server.post("/v1/messages", { message: text, priority: "high", id: "mine" }, key), 202)
      expect(reply.body.message).toBe(text)
      expect(reply.body.id).not.toBe("mine")
    }))

  it.effect("400 on invalid JSON, a missing or non-string `message`, and a wrong or missing Content-Type", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const post = (raw: string | Uint8Array, headers: Record<string, string> = { "content-type": "application/json" }) =>
        server.request("POST", "/v1/messages", { key, raw, headers })
      expectError(yield* post("{\"message\":"), 400, "invalid_json")
      expectError(yield* post(""), 400, "invalid_json")
      expectInvalid(yield* post("{}"), "body message")
      expectInvalid(yield* post("{\"text\":\"hi\"}"), "body message")
      for (const value of ["null", "42", "[\"hi\"]", "{\"a\":1}", "true"]) {
        expectInvalid(yield* post(`{"message":${value}}`), "body message")
      }
      expectError(yield* post("[]"), 400, "invalid_request")
      expectError(yield* post(new TextEncoder().encode("{\"message\":\"hi\"}"), {}), 400, "unsupported_media_type")
      expectError(yield* post("{\"message\":\"hi\"}", { "content-type": "text/plain" }), 400, "unsupported_media_type")
      expectError(
        yield* post("message=hi", { "content-type": "application/x-www-form-urlencoded" }),
        400,
        "unsupported_media_type"
      )
    }))

  it.effect("401 without a valid key, for submitting and for reading", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const created = expectStatus(yield* server.post("/v1/messages", { message: "hi" }, key), 202)
      expectUnauthorized(yield* server.post("/v1/messages", { message: "hi" }))
      expectUnauthorized(yield* server.post("/v1/messages", { message: "hi" }, "psk_live_" + "Z".repeat(32)))
      expectUnauthorized(yield* server.get(`/v1/messages/${created.body.id}`))
    }))

  it.effect("only the submitting account reads a message: another account's id, or an unknown id, is 404", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const owner = yield* server.admin.createAccount()
      const sameAccountKey = yield* server.admin.createKey(owner.id)
      const created = expectStatus(yield* server.post("/v1/messages", { message: "private" }, owner.key), 202)
      const path = `/v1/messages/${created.body.id}`
      expectStatus(yield* server.get(path, sameAccountKey.key), 200)
      expectError(yield* server.get(path, key), 404, "not_found")
      expectError(yield* server.get("/v1/messages/msg_doesNotExist0000000000", key), 404, "not_found")
      expectError(yield* server.get("/v1/messages/%20", key), 404, "not_found")
    }))
})

it.live("a message whose processing keeps failing is retried with backoff and ends `failed`", () =>
  Effect.gen(function*() {
    const attempts: Array<{ readonly id: string; readonly attempt: number }> = []
    const server = yield* TestServer.start({
      messageQueue: { maxAttempts: 3, backoffBaseMillis: 20, backoffMaxMillis: 50 },
      messageProcessor: {
        process: ({ attempt, id }) =>
          Effect.suspend(() => {
            attempts.push({ id, attempt })
            return Effect.fail(new MessageProcessor.ProcessingFailed({ reason: "downstream refused" }))
          })
      }
    })
    const { key } = yield* server.enterprise(1_000_000)
    const created = expectStatus(yield* server.post("/v1/messages", { message: "doomed" }, key), 202)
    expect(created.body.status).toBe("queued")
    const failed = yield* awaitStatus(server, key, `/v1/messages/${created.body.id}`, "failed")
    expect(failed.body).toEqual({ ...created.body, status: "failed", attempts: 3, lastError: "downstream refused" })
    expect(attempts).toEqual([1, 2, 3].map((attempt) => ({ id: created.body.id, attempt })))
  }))

it.live("a message is `processing` while the processor works on it, then `delivered`", () =>
  Effect.gen(function*() {
    const release = yield* Deferred.make<void>()
    const server = yield* TestServer.start({ messageProcessor: { process: () => Deferred.await(release) } })
    const { key } = yield* server.enterprise(1_000_000)
    const created = expectStatus(yield* server.post("/v1/messages", { message: "slow" }, key), 202)
    const path = `/v1/messages/${created.body.id}`
    yield* awaitStatus(server, key, path, "processing")
    yield* Deferred.succeed(release, undefined)
    yield* awaitStatus(server, key, path, "delivered")
  }))

it.live("reading a message counts against the account's limits like any request", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ frozenAt: Date.UTC(2029, 0, 10, 12) })
    const { key } = yield* server.enterprise(2)
    const created = expectStatus(yield* server.post("/v1/messages", { message: "hi" }, key), 202)
    expectStatus(yield* server.get(`/v1/messages/${created.body.id}`, key), 200)
    expectError(yield* server.get(`/v1/messages/${created.body.id}`, key), 429, "rate_limited")
    expectError(yield* server.post("/v1/messages", { message: "again" }, key), 429, "rate_limited")
  }))

it.live("a processor that fails once is retried and the message is `delivered`", () =>
  Effect.gen(function*() {
    let calls = 0
    const server = yield* TestServer.start({
      messageQueue: { maxAttempts: 5, backoffBaseMillis: 20, backoffMaxMillis: 50 },
      messageProcessor: {
        process: () =>
          Effect.suspend(() =>
            ++calls === 1 ? Effect.fail(new MessageProcessor.ProcessingFailed({ reason: "flaky" })) : Effect.void
          )
      }
    })
    const { key } = yield* server.enterprise(1_000_000)
    const created = expectStatus(yield* server.post("/v1/messages", { message: "eventually" }, key), 202)
    yield* awaitStatus(server, key, `/v1/messages/${created.body.id}`, "delivered")
    expect(calls).toBe(2)
  }))

it.live("the message operations live at the configured base path (`quickstartBasePath`)", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ quickstartBasePath: "/quickstart/v2" })
    const { key } = yield* server.enterprise(1_000_000)
    const created = expectStatus(yield* server.post("/quickstart/v2/messages", { message: "hi" }, key), 202)
    expect(created.headers.get("location")).toBe(`/quickstart/v2/messages/${created.body.id}`)
    yield* awaitStatus(server, key, `/quickstart/v2/messages/${created.body.id}`, "delivered")
    expectError(yield* server.post("/v1/messages", { message: "hi" }, key), 404, "not_found")
    expectError(yield* server.get(`/v1/messages/${created.body.id}`, key), 404, "not_found")
    expectUnauthorized(yield* server.post("/quickstart/v2/messages", { message: "hi" }))
    // the pets stay under /v1
    expectStatus(yield* server.get("/v1/pets", key), 200)
  }))
