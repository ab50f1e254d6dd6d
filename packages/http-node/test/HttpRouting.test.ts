import { expect, it, layer } from "@effect/vitest"
import { Errors, type PetRepository } from "@petstore/core"
import { LIFECYCLE } from "../src/internal/operations/getPet.js"
import { Effect } from "effect"
import * as Net from "node:net"
import {
  expectError,
  expectRateLimitHeaders,
  expectStatus,
  expectTooManyRequests,
  expectUnauthorized
} from "./support/Expectations.js"
import * as ServerSockets from "./support/ServerSockets.js"
import { type Reply, TestServer } from "./support/TestServer.js"

const JSON_TYPE = { "content-type": "application/json" }
const OVERSIZE = JSON.stringify({ name: "Big", categoryId: 1, pad: "x".repeat(70_000) })

const allowOf = (reply: Reply) => (reply.headers.get("allow") ?? "").split(",").map((m) => m.trim()).sort()

/** Sends raw bytes on a new connection and returns everything the server wrote before closing. */
const rawExchange = (url: string, bytes: string) =>
  Effect.callback<string>((resume) => {
    const { hostname, port } = new URL(url)
    const socket = Net.connect(Number(port), hostname, () => socket.write(bytes))
    const chunks: Array<Buffer> = []
    socket.on("data", (chunk) => chunks.push(chunk))
    socket.on("close", () => resume(Effect.succeed(Buffer.concat(chunks).toString("latin1"))))
    socket.on("error", () => {})
    return Effect.sync(() => socket.destroy())
  })

/** Status line, headers and parsed body of a raw HTTP/1.1 answer. */
const parseRaw = (text: string) => {
  const [head = "", body = ""] = text.split("\r\n\r\n")
  const [statusLine = "", ...lines] = head.split("\r\n")
  const headers = new Headers(lines.map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()] as [string, string]))
  const status = Number(statusLine.split(" ")[1])
  let parsed: unknown = undefined
  try {
    parsed = JSON.parse(body)
  } catch {
    parsed = undefined
  }
  return { status, headers, text: body, body: parsed } satisfies Reply
}

layer(TestServer.layer(), { excludeTestServices: true })("HTTP routing", (it) => {
  const account = Effect.flatMap(TestServer, (server) => Effect.map(server.enterprise(1_000_000), ({ key }) => ({ server, key })))

  it.effect("an unknown route → 404 `not_found` with an Error body", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      for (const path of ["/v1/nothing", "/v1/pets/1/owner", "/v2/pets", "/pets", "/", "/v1", "/v1/message", "/admin-not"]) {
        expectRateLimitHeaders(expectError(yield* server.get(path, key), 404, "not_found"))
      }
      expectError(yield* server.request("POST", "/v1/nothing", { key, json: {} }), 404, "not_found")
    }))

  it.effect("paths match exactly: other letter case or a trailing slash is an unknown route (404)", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const created = yield* server.post("/v1/pets", { name: "Rex", categoryId: 1 }, key)
      expect(created.status).toBe(201)
      for (const path of ["/v1/PETS", "/V1/pets", "/v1/Pets", "/v1/pets/", "/v1/pets/1/", "/v1/messages/"]) {
        expectError(yield* server.get(path, key), 404, "not_found")
      }
      expect((yield* server.get("/v1/pets", key)).status).toBe(200)
    }))

  it.effect("`GET /store/orders` is named by the interface but not served: 404", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      expectError(yield* server.get("/v1/store/orders", key), 404, "not_found")
      expectError(yield* server.get("/store/orders", key), 404, "not_found")
    }))

  it.effect("a known route with a wrong method → 405 `method_not_allowed` with `Allow`", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const cases = [
        ["DELETE", "/v1/pets", ["GET", "HEAD", "POST"]],
        ["PUT", "/v1/pets", ["GET", "HEAD", "POST"]],
        ["PATCH", "/v1/pets?limit=5", ["GET", "HEAD", "POST"]],
        ["OPTIONS", "/v1/pets", ["GET", "HEAD", "POST"]],
        ["POST", "/v1/pets/1", ["GET", "HEAD"]],
        ["DELETE", "/v1/pets/1", ["GET", "HEAD"]],
        ["PUT", "/v1/pets/abc", ["GET", "HEAD"]],
        ["GET", "/v1/messages", ["POST"]],
        ["HEAD", "/v1/messages", ["POST"]],
        ["DELETE", "/v1/messages/msg_1", ["GET", "HEAD"]]
      ] as const
      for (const [method, path, allow] of cases) {
        const reply = yield* server.request(method, path, { key })
        expect(reply.status, `${method} ${path}`).toBe(405)
        expect(allowOf(reply)).toEqual([...allow])
        expectRateLimitHeaders(reply)
        if (method !== "HEAD") expectError(reply, 405, "method_not_allowed")
      }
    }))

  it.effect("HEAD is served on every GET route, without a body", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const pet = yield* server.createPet(key, { name: "Rex", categoryId: 1 })
      for (const path of ["/v1/pets", `/v1/pets/${pet.id}`, "/v1/pets?status=available"]) {
        const reply = expectStatus(yield* server.request("HEAD", path, { key }), 200)
        expect(reply.text).toBe("")
        expect(reply.headers.get("content-type")).toBe("application/json")
        expectRateLimitHeaders(reply)
      }
      const getPet = yield* server.request("HEAD", `/v1/pets/${pet.id}`, { key })
      expect(getPet.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT")
      expectStatus(yield* server.request("HEAD", "/v1/pets/999999", { key }), 404)
      expectStatus(yield* server.request("HEAD", "/v1/openapi.json"), 200)
      const unauthorized = expectStatus(yield* server.request("HEAD", "/v1/pets"), 401)
      expect(unauthorized.text).toBe("")
      expect(unauthorized.headers.get("content-type")).toBe("application/json")
      expect(unauthorized.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expectRateLimitHeaders(unauthorized)
    }))

  it.effect("`/v1/openapi.json` needs no key: 200 with the OpenAPI 3.0.3 document", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      for (const authorization of [undefined, "Bearer psk_live_" + "Q".repeat(32), "Basic eDp5"]) {
        const reply = expectStatus(yield* server.request("GET", "/v1/openapi.json", { authorization }), 200)
        expect(reply.headers.get("content-type")).toBe("application/json")
        expect(reply.body).toMatchObject({ openapi: "3.0.3", info: { version: "1.1.0" } })
        expect(Object.keys(reply.body.paths)).toEqual(expect.arrayContaining(["/v1/pets", "/v1/pets/{petId}", "/v1/messages"]))
      }
      // only GET and HEAD are open; any other method still needs a key, and then is 405
      expectUnauthorized(yield* server.request("POST", "/v1/openapi.json", { json: {} }))
      const { key } = yield* server.enterprise(1_000)
      const post = expectError(yield* server.request("POST", "/v1/openapi.json", { key, json: {} }), 405, "method_not_allowed")
      expect(allowOf(post)).toEqual(["GET", "HEAD"])
      expectRateLimitHeaders(post)
    }))

  it.effect("`/docs` needs no key: the HTML API reference", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const reply = expectStatus(yield* server.get("/docs"), 200)
      expect(reply.headers.get("content-type")).toMatch(/^text\/html/)
      expect(reply.text).toMatch(/^<!doctype html>/i)
      expect(reply.text).toContain("v1/openapi.json")
    }))

  it.effect("the order of checks: authentication → rate limit → routing → body size → validation → operation", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const post = (path: string, raw: string, headers: Record<string, string> = JSON_TYPE, k = key) =>
        server.request("POST", path, { key: k, raw, headers })
      // authentication before everything
      expectUnauthorized(yield* server.request("POST", "/v1/nothing", { raw: OVERSIZE }))
      expectUnauthorized(yield* server.request("DELETE", "/v1/pets/abc"))
      // the rate limit before routing, size and validation
      const limited = yield* server.enterprise(1)
      expectStatus(yield* server.get("/v1/pets", limited.key), 200)
      expectTooManyRequests(yield* server.get("/v1/nothing", limited.key), "rate_limited")
      expectTooManyRequests(yield* server.request("DELETE", "/v1/pets", { key: limited.key }), "rate_limited")
      expectTooManyRequests(yield* post("/v1/pets", OVERSIZE, JSON_TYPE, limited.key), "rate_limited")
      expectTooManyRequests(yield* post("/v1/pets", "{", JSON_TYPE, limited.key), "rate_limited")
      // routing before size
      expectError(yield* post("/v1/nothing", OVERSIZE), 404, "not_found")
      expectError(yield* server.request("PUT", "/v1/pets", { key, raw: OVERSIZE, headers: JSON_TYPE }), 405, "method_not_allowed")
      // size before validation (content type, JSON, fields)
      expectError(yield* post("/v1/pets", OVERSIZE, { "content-type": "text/plain" }), 413, "payload_too_large")
      expectError(yield* post("/v1/pets", "{" + OVERSIZE), 413, "payload_too_large")
      // validation before the operation
      expectError(yield* server.get("/v1/pets/0", key), 400, "invalid_request")
      expectError(yield* server.get("/v1/pets/987654?limit=0", key), 404, "not_found")
    }))

  it.effect("every error, whatever its status, is `application/json` with exactly {code, message, status}", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const replies = [
        yield* server.get("/v1/pets?limit=abc", key),
        yield* server.request("POST", "/v1/pets", { key, raw: "{", headers: JSON_TYPE }),
        yield* server.get("/v1/pets"),
        yield* server.get("/nowhere", key),
        yield* server.request("DELETE", "/v1/pets", { key }),
        yield* server.request("POST", "/v1/pets", { key, raw: OVERSIZE, headers: JSON_TYPE })
      ]
      expect(replies.map((r) => r.status)).toEqual([400, 400, 401, 404, 405, 413])
      for (const reply of replies) expectError(reply, reply.status, reply.body.code)
    }))

  it.effect("a request that is not valid HTTP still gets a JSON Error body", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const garbage = parseRaw(yield* rawExchange(server.url, "NOT HTTP AT ALL\r\n\r\n"))
      expectError(garbage, 400, "invalid_request")
      const badHeader = parseRaw(yield* rawExchange(server.url, "GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n"))
      expectError(badHeader, 400, "invalid_request")
      const hugeHeaders = parseRaw(
        yield* rawExchange(server.url, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`)
      )
      expectError(hugeHeaders, 431, "headers_too_large")
    }))
})

it.effect("after the sunset, validation still comes before the operation: a bad id is 400, a good one 410", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ frozenAt: LIFECYCLE.sunsetAt })
    const { key } = yield* server.enterprise(1_000)
    expectError(yield* server.get("/v1/pets/abc", key), 400, "invalid_request")
    expectError(yield* server.get("/v1/pets/1", key), 410, "gone")
  }))

it.effect("a store that cannot be reached → 503 `unavailable` with an Error body and the rate-limit headers", () =>
  Effect.gen(function*() {
    const down = Effect.fail(new Errors.StoreUnavailable({ cause: "connection refused" }))
    const server = yield* TestServer.start({
      petRepository: { insert: () => down, listAfter: () => down, findById: () => down, onChange: () => Effect.void } satisfies PetRepository.PetRepository["Service"]
    })
    const { key } = yield* server.enterprise(1_000)
    for (
      const reply of [
        yield* server.get("/v1/pets", key),
        yield* server.post("/v1/pets", { name: "Rex", categoryId: 1 }, key),
        yield* server.get("/v1/pets/1", key)
      ]
    ) {
      expectError(reply, 503, "unavailable")
      expectRateLimitHeaders(reply)
      expect(reply.text).not.toContain("connection refused")
    }
  }))

it.effect("an unexpected failure → 500 `internal_error` that leaks nothing, with the rate-limit headers", () =>
  Effect.gen(function*() {
    const boom = Effect.die(new Error("secret detail at /srv/app/PetRepository.ts:42"))
    const server = yield* TestServer.start({
      petRepository: { insert: () => boom, listAfter: () => boom, findById: () => boom, onChange: () => Effect.void },
      quiet: true
    })
    const { key } = yield* server.enterprise(1_000)
    for (const reply of [yield* server.get("/v1/pets", key), yield* server.post("/v1/pets", { name: "Rex", categoryId: 1 }, key)]) {
      expectError(reply, 500, "internal_error")
      expect(reply.text).not.toMatch(/secret|\/srv|\.ts|at /)
      expectRateLimitHeaders(reply)
    }
    // the server keeps serving
    expectStatus(yield* server.post("/v1/messages", { message: "still here" }, key), 202)
  }))

it.live("a POST whose body never arrives whole (the client goes away) creates nothing, even when the part sent is valid JSON", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start()
    const { key } = yield* server.admin.createAccount()
    const { hostname, port } = new URL(server.url)
    const partial = JSON.stringify({ name: "Cut", categoryId: 1 })
    const sockets = yield* ServerSockets.watch
    // Declares 100 bytes, sends a complete JSON object of fewer, and once the server has read all of
    // it, hangs up; then waits for the server's side of the connection to close.
    const sent = `POST /v1/pets HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n${partial}`
    const socket = yield* Effect.callback<Net.Socket>((resume) => {
      const socket = Net.connect(Number(port), hostname, () => socket.write(sent, () => resume(Effect.succeed(socket))))
      socket.on("error", () => {})
    })
    yield* ServerSockets.until("the server to read the partial request", () => (sockets.of(socket)?.bytesRead ?? 0) >= sent.length)
    const serverSide = sockets.of(socket)!
    socket.destroy()
    yield* ServerSockets.closed(serverSide)
    expect(expectStatus(yield* server.get("/v1/pets", key), 200).body).toStrictEqual([])
    // A whole body on a new connection is created as usual.
    yield* server.createPet(key, { name: "Whole", categoryId: 1 })
    expect(expectStatus(yield* server.get("/v1/pets", key), 200).body).toHaveLength(1)
  }))
