/**
 * What every request leaves behind, through real HTTP: its `X-Request-Id` on the answer (kept from
 * the request when well-formed, otherwise random), one access-log line with its facts, and its id
 * on every log line written while it was served.
 */
import { expect, it, layer } from "@effect/vitest"
import type { PetRepository } from "@petstore/core"
import { Effect, Logger, References } from "effect"
import { answers, exchange } from "./support/RawHttp.js"
import { expectError, expectStatus } from "./support/Expectations.js"
import { type Reply, TestServer } from "./support/TestServer.js"
import type { AppRequest } from "../src/AppRequest.js"
import type { AppResponse } from "../src/AppResponse.js"
import * as AccessLine from "../src/AccessLine.js"
import * as RequestObserver from "../src/RequestObserver.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

interface Logged {
  readonly level: string
  readonly message: unknown
  readonly annotations: Record<string, unknown>
}

/** A log call's message: its one value, or the values it was given. */
const single = (message: unknown) => (Array.isArray(message) && message.length === 1 ? message[0] : message)

/** A logger that keeps every line it is given. */
const capturing = () => {
  const lines: Array<Logged> = []
  const logger = Logger.make(({ fiber, logLevel, message }) => {
    const annotations = fiber.getRef(References.CurrentLogAnnotations)
    lines.push({ level: logLevel, message: single(message), annotations: { ...annotations } })
  })
  return { lines, logger, access: () => lines.filter((line) => line.message === "request") }
}

const idOf = (reply: Reply) => reply.headers.get("x-request-id")

layer(TestServer.layer())("X-Request-Id", (it) => {
  const WELL_FORMED = [
    "abc-123",
    "0f8fa4c2-5b1e-4d2a-9c1f-3a2b1c0d9e8f",
    "01HZY3K9Q7W8E6R5T4Y3U2I1O0",
    "Root=1-67891233-abcdef012345678912345678",
    "a".repeat(128),
    "x._~:/+=-y"
  ]
  for (const id of WELL_FORMED) {
    it.effect(`a well-formed id is echoed: ${id.length > 40 ? `${id.slice(0, 20)}… (${id.length})` : id}`, () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        expect(idOf(yield* server.request("GET", "/v1/pets", { headers: { "x-request-id": id } }))).toBe(id)
      }))
  }

  const MALFORMED = ["a".repeat(129), "has space", "quote\"d", "semi;colon", "comma,list", "caf\u00e9", ""]
  for (const id of MALFORMED) {
    it.effect(`an id too long or outside [A-Za-z0-9._~:/+=-] is replaced by a random one: ${JSON.stringify(id.slice(0, 20))}`, () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        expect(idOf(yield* server.request("GET", "/v1/pets", { headers: { "x-request-id": id } }))).toMatch(UUID)
      }))
  }

  it.effect("a request without one gets a random UUID, a new one each time", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const ids = new Set<string | null>()
      for (let i = 0; i < 5; i++) ids.add(idOf(yield* server.get("/v1/pets")))
      expect(ids.size).toBe(5)
      for (const id of ids) expect(id).toMatch(UUID)
    }))

  it.effect("every answer carries it: 200, 201, 401, 404, 405, 413 and 429", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.enterprise(4)
      const send = (method: string, path: string, status: number, options: Parameters<typeof server.request>[2] = {}) =>
        Effect.map(
          server.request(method, path, { ...options, headers: { ...options.headers, "x-request-id": `id-${status}` } }),
          (reply) => {
            expect(reply.status, reply.text).toBe(status)
            expect(idOf(reply)).toBe(`id-${status}`)
          }
        )
      yield* send("GET", "/v1/pets", 200, { key })
      yield* send("POST", "/v1/pets", 201, { key, json: { name: "Rex", categoryId: 1 } })
      yield* send("GET", "/v1/pets", 401)
      yield* send("DELETE", "/v1/pets", 405, { key })
      yield* send("POST", "/v1/pets", 413, { key, raw: "x".repeat(70_000), headers: { "content-type": "application/json" } })
      yield* send("GET", "/v1/pets", 429, { key })
      const other = yield* server.enterprise(10)
      yield* send("GET", "/v1/nowhere", 404, { key: other.key })
    }))

  it.effect("the OpenAPI document declares it on every response of every operation (required below 500)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const document = (yield* server.get("/v1/openapi.json")).body
      expect(document.components.headers["X-Request-Id"]).toMatchObject({ required: true, schema: { maxLength: 128 } })
      let responses = 0
      for (const operations of Object.values(document.paths) as Array<Record<string, any>>) {
        for (const operation of Object.values(operations)) {
          for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
            // A 5xx may be answered before the request is read (past the connection cap): sometimes there.
            const component = Number(status) >= 500 ? "X-Request-Id.Optional" : "X-Request-Id"
            expect(response.headers?.["X-Request-Id"], `${operation.operationId} ${status}`).toEqual({ $ref: `#/components/headers/${component}` })
            responses++
          }
        }
      }
      expect(responses).toBeGreaterThan(20)
    }))

  it.effect("the answers node:http sends before the application (no Host: 400, a bad Expect: 417) carry one too", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const [noHost] = answers(yield* exchange(server.url, "GET /v1/pets HTTP/1.1\r\nX-Request-Id: raw-400\r\n\r\n"))
      expect(noHost!.status).toBe(400)
      expect(noHost!.headers["x-request-id"]).toBe("raw-400")
      const [expectation] = answers(yield* exchange(server.url, "GET /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: soon\r\n\r\n"))
      expect(expectation!.status).toBe(417)
      expect(expectation!.headers["x-request-id"]).toMatch(UUID)
    }))
})

layer(TestServer.layer({ quiet: true, timeouts: { headers: "1 second", request: "1 second" } }))("X-Request-Id on node's own error answers", (it) => {
  it.effect("malformed HTTP gets a 400 with a new id; a body that never arrives gets a 408 with the request's id", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const [malformed] = answers(yield* exchange(server.url, "GARBAGE\r\n\r\n"))
      expect(malformed!.status).toBe(400)
      expect(malformed!.headers["x-request-id"]).toMatch(UUID)
      const [slow] = answers(
        yield* exchange(
          server.url,
          "POST /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-Id: slow-1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":"
        )
      )
      expect(slow!.status).toBe(408)
      expect(slow!.headers["x-request-id"]).toBe("slow-1")
    }))
})

it.effect("a 5xx carries it, and the error logged while serving the request carries the same id", () =>
  Effect.gen(function*() {
    const down = Effect.die(new Error("the store broke"))
    const log = capturing()
    const server = yield* TestServer.start({
      petRepository: { insert: () => down, listAfter: () => down, findById: () => down, onChange: () => Effect.void } satisfies PetRepository.PetRepository["Service"],
      logger: log.logger,
      observe: { accessLog: true }
    })
    const { key } = yield* server.enterprise(100)
    const reply = yield* server.request("GET", "/v1/pets", { key, headers: { "x-request-id": "failing-1" } })
    expectError(reply, 500, "internal_error")
    expect(idOf(reply)).toBe("failing-1")
    const failed = log.lines.filter((line) => line.level === "Error")
    expect(failed).toHaveLength(1)
    expect(failed[0]!.message).toContain("request failed")
    expect(failed[0]!.annotations.requestId).toBe("failing-1")
    expect(log.access().map((line) => line.annotations)).toContainEqual(expect.objectContaining({ requestId: "failing-1", route: "GET /v1/pets", status: 500 }))
  }))

it.effect("the access log: one line per request with method, path, route, status, client address, duration, account and request id", () =>
  Effect.gen(function*() {
    const log = capturing()
    const server = yield* TestServer.start({ logger: log.logger, observe: { accessLog: true } })
    const account = yield* server.enterprise(100)
    const before = log.access().length

    expectStatus(yield* server.request("GET", "/v1/pets?limit=5", { key: account.key, headers: { "x-request-id": "routed-1" } }), 200)
    expectStatus(yield* server.request("GET", "/v1/nowhere", { key: account.key, headers: { "x-request-id": "unrouted-1" } }), 404)
    expectStatus(yield* server.request("GET", "/v1/pets", { headers: { "x-request-id": "keyless-1" } }), 401)

    const lines = log.access().slice(before)
    expect(lines).toHaveLength(3)
    for (const line of lines) {
      expect(line.level).toBe("Info")
      expect(typeof line.annotations.durationMs).toBe("number")
      expect(line.annotations.durationMs).toBeGreaterThanOrEqual(0)
    }
    const [routed, unrouted, keyless] = lines.map(({ annotations: { durationMs: _, ...facts } }) => facts)
    const clientAddress = expect.stringMatching(/\d|:/)
    expect(routed).toEqual({ requestId: "routed-1", method: "GET", path: "/v1/pets", route: "GET /v1/pets", status: 200, clientAddress, accountId: account.id })
    expect(unrouted).toEqual({ requestId: "unrouted-1", method: "GET", path: "/v1/nowhere", status: 404, clientAddress, accountId: account.id })
    // Refused before routing, it still names the route it asked for.
    expect(keyless).toEqual({ requestId: "keyless-1", method: "GET", path: "/v1/pets", route: "GET /v1/pets", status: 401, clientAddress })
  }))

/** A capturing logger that also writes access lines from their facts (as the standalone server's JSON logger does). */
const withWriter = () => {
  const log = capturing()
  const facts: Array<AccessLine.Facts> = []
  const logger = AccessLine.withAccessWriter(log.logger, (line, millis) => {
    expect(Number.isInteger(millis)).toBe(true)
    facts.push(line)
  })
  return { ...log, logger, facts }
}

it.effect("a logger with an access writer is handed each answer's facts instead of Effect's log call", () =>
  Effect.gen(function*() {
    const log = withWriter()
    const server = yield* TestServer.start({ logger: log.logger, observe: { accessLog: true } })
    const account = yield* server.enterprise(100)
    const before = log.facts.length
    expectStatus(yield* server.request("GET", "/v1/pets?limit=5", { key: account.key, headers: { "x-request-id": "routed-2" } }), 200)
    expectStatus(yield* server.request("GET", "/v1/pets", { headers: { "x-request-id": "keyless-2" } }), 401)
    const clientAddress = expect.stringMatching(/\d|:/)
    const durationMs = expect.any(Number)
    expect(log.facts.slice(before)).toEqual([
      { requestId: "routed-2", reqId: undefined, method: "GET", path: "/v1/pets", route: "GET /v1/pets", status: 200, clientAddress, durationMs, accountId: account.id },
      { requestId: "keyless-2", reqId: undefined, method: "GET", path: "/v1/pets", route: "GET /v1/pets", status: 401, clientAddress, durationMs, accountId: undefined }
    ])
    // Not twice: the logger's own log is not also given the access line.
    expect(log.access()).toEqual([])
  }))

for (const [what, annotations] of [
  ["its own", { service: "pets" }],
  ["one named as a fact", { requestId: "the-builder", service: "pets" }]
] as const) {
  it.effect(`when the fiber building the application has log annotations (${what}), every logger is given Effect's log call, which carries them`, () =>
    Effect.gen(function*() {
      const log = withWriter()
      const server = yield* TestServer.start({ logger: log.logger, observe: { accessLog: true }, annotations })
      const account = yield* server.enterprise(100)
      expectStatus(yield* server.request("GET", "/v1/pets", { key: account.key, headers: { "x-request-id": "r-3" } }), 200)
      expect(log.facts).toEqual([])
      // The request's facts over the builder's annotations of the same name, the builder's others kept.
      expect(log.access().map((line) => line.annotations)).toContainEqual(expect.objectContaining({ requestId: "r-3", service: "pets", status: 200 }))
    }))
}

it("an access writer is added to a new logger: the logger it is given is left as it was", () => {
  const log = capturing()
  const written = AccessLine.withAccessWriter(log.logger, () => undefined)
  expect(AccessLine.writerOf(written)).toBeTypeOf("function")
  expect(AccessLine.writerOf(log.logger)).toBeUndefined()
})

it.effect("no log line holds a key, an Authorization header or a body", () =>
  Effect.gen(function*() {
    const log = capturing()
    const server = yield* TestServer.start({ logger: log.logger, observe: { accessLog: true } })
    const account = yield* server.enterprise(100)
    expectStatus(yield* server.post("/v1/pets", { name: "Body-Secret-Name", categoryId: 7 }, account.key), 201)
    expectStatus(yield* server.post("/v1/messages", { message: "body secret message" }, account.key), 202)
    expectStatus(yield* server.request("GET", "/v1/pets", { authorization: "Bearer not-a-key-but-secret" }), 401)
    const written = JSON.stringify(log.lines)
    expect(log.access().length).toBeGreaterThanOrEqual(3)
    for (const secret of [account.key, account.key.slice(9), "not-a-key-but-secret", "Body-Secret-Name", "body secret message", "Bearer"]) {
      expect(written).not.toContain(secret)
    }
  }))

it.effect("with the access log off (the library's default), nothing is logged per request", () =>
  Effect.gen(function*() {
    const log = capturing()
    const server = yield* TestServer.start({ logger: log.logger })
    const { key } = yield* server.enterprise(100)
    expect(idOf(expectStatus(yield* server.get("/v1/pets", key), 200))).toMatch(UUID)
    expectStatus(yield* server.get("/v1/pets"), 401)
    expect(log.access()).toEqual([])
  }))

it.effect("with the minimum log level above Info, the access log writes nothing", () =>
  Effect.gen(function*() {
    const log = capturing()
    const server = yield* TestServer.start({ logger: log.logger, observe: { accessLog: true }, quiet: true })
    const { key } = yield* server.enterprise(100)
    expectStatus(yield* server.get("/v1/pets", key), 200)
    expect(log.lines).toEqual([])
  }))

it.effect("run inside a host's fiber (an Effect host), a request that waits annotates the lines logged while it runs, then leaves the host's annotations as they were", () =>
  Effect.gen(function*() {
    const log = capturing()
    const observe = yield* RequestObserver.make({})
    const handle = (request: AppRequest) =>
      observe(request, () =>
        Effect.andThen(
          Effect.andThen(Effect.yieldNow, Effect.logInfo("inside")),
          Effect.succeed<AppResponse>({ status: 200, headers: {}, body: undefined })
        ))
    const request: AppRequest = {
      method: "GET",
      url: "/v1/pets",
      header: (name) => (name === "x-request-id" ? "host-1" : undefined),
      remoteAddress: undefined,
      readBody: () => Effect.succeed({ _tag: "Consumed" })
    }
    const served = yield* Effect.annotateLogs(
      Effect.tap(handle(request), () => Effect.logInfo("after")),
      "host",
      "h"
    ).pipe(Effect.provide(Logger.layer([log.logger])))
    expect(served.headers["X-Request-Id"]).toBe("host-1")
    expect(log.lines.map((line) => [line.message, line.annotations])).toEqual([
      ["inside", { host: "h", requestId: "host-1" }],
      ["after", { host: "h" }]
    ])
  }))
