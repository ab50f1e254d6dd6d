/**
 * What one connection may do and what it is owed, over raw sockets: every request carried out gets
 * its answer, in order, also when a malformed request follows it; pipelining works; a client that
 * sends a body above the limit reads the 413 rather than a reset; a connection that never reads its
 * answers is no longer read from (backpressure) and loses nothing; past the cap on connections a new
 * one gets a 503 Error body.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as Net from "node:net"
import * as RawHttp from "./support/RawHttp.js"
import * as ServerSockets from "./support/ServerSockets.js"
import { TestServer } from "./support/TestServer.js"

const T = Date.UTC(2026, 0, 5, 12, 0, 0)

const expectErrorBody = (answer: RawHttp.RawAnswer, status: number, code: string) => {
  expect(answer.status).toBe(status)
  expect(answer.headers["content-type"]).toBe("application/json")
  expect(answer.body).toEqual({ code, message: expect.any(String), status })
}

describe("HTTP connections", () => {
  it.effect("requests carried out before a malformed one in the same packet are answered, in order, before its 400", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const valid = Array.from({ length: 30 }, (_, i) => RawHttp.request("POST", "/v1/pets", { key, json: { name: `pet ${i}`, categoryId: 1 } }))
      const raw = yield* RawHttp.exchange(server.url, valid.join("") + "GET /v1/pets HTTP/1.1\r\nHost: x\r\nNot a header line\r\n\r\n")
      const replies = RawHttp.answers(raw)
      expect(replies.map((r) => r.status)).toEqual([...Array(30).fill(201), 400])
      expect(replies.slice(0, 30).map((r) => r.body.name)).toEqual(Array.from({ length: 30 }, (_, i) => `pet ${i}`))
      expectErrorBody(replies[30]!, 400, "invalid_request")
      const listed = yield* server.get("/v1/pets?limit=100", key)
      expect(listed.body).toHaveLength(30)
    }))

  it.effect("a request pipelined after one that asked to close the connection is not carried out", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const first = RawHttp.request("POST", "/v1/pets", { key, json: { name: "first", categoryId: 1 }, headers: "Connection: close\r\n" })
      const second = RawHttp.request("POST", "/v1/pets", { key, json: { name: "second", categoryId: 1 } })
      const replies = RawHttp.answers(yield* RawHttp.exchange(server.url, first + second))
      expect(replies.map((r) => r.status)).toEqual([201])
      expect(replies[0]!.headers["connection"]).toBe("close")
      const listed = yield* server.get("/v1/pets", key)
      expect(listed.body.map((pet: { name: string }) => pet.name)).toEqual(["first"])
    }))

  it.effect("200 pipelined requests on one connection are all answered, in order", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const connection = yield* RawHttp.connect(server.url)
      connection.write(Array.from({ length: 200 }, (_, i) => RawHttp.request("POST", "/v1/pets", { key, json: { name: `p${i}`, categoryId: 2 } })).join(""))
      const replies = yield* Effect.promise(() => connection.awaitAnswers(200))
      expect(replies.map((r) => r.status)).toEqual(Array(200).fill(201))
      expect(replies.map((r) => r.body.name)).toEqual(Array.from({ length: 200 }, (_, i) => `p${i}`))
      const ids = replies.map((r) => r.body.id as number)
      expect([...ids].sort((a, b) => a - b)).toEqual(ids)
    }))

  it.effect("a body above 64 KiB sent whole with its Content-Length: the client reads the 413, never a reset", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const body = Buffer.alloc(8 * 1024 * 1024, "a")
      const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
      const endings = yield* Effect.forEach(
        Array.from({ length: 10 }),
        () => RawHttp.exchangeEnding(server.url, Buffer.concat([Buffer.from(head), body]), 20_000),
        { concurrency: 5 }
      )
      for (const ending of endings) {
        expect(ending.reset).toBe(false)
        const [reply] = RawHttp.answers(ending.raw)
        expectErrorBody(reply!, 413, "payload_too_large")
      }
    }))

  it.effect("a connection that never reads is no longer read from; when it reads, every request is answered in order", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true, frozenAt: T })
      const { key } = yield* server.enterprise(1_000_000, 10_000_000)
      // 100 pets with long names: a page of them is about 30 KB, so 1,000 pages are far more than socket buffers hold.
      for (let i = 0; i < 100; i++) yield* server.createPet(key, { name: `${i}`.padEnd(250, "x"), categoryId: 1 })
      const used = () =>
        Effect.map(server.get("/v1/pets?limit=1", key), (reply) => 1_000_000 - Number(reply.headers.get("x-ratelimit-remaining")))
      const before = yield* used()
      const sent = 1_000
      const sockets = yield* ServerSockets.watch
      const connection = yield* RawHttp.connect(server.url, { reading: false })
      connection.write(RawHttp.request("GET", "/v1/pets?limit=100", { key }).repeat(sent))
      // The event itself: the server has stopped reading the connection (its socket paused) while
      // holding answers the kernel no longer takes (the client reads nothing), so it cannot resume.
      yield* ServerSockets.until("the server to stop reading the connection", () => {
        const socket = sockets.of(connection.socket)
        return socket !== undefined && socket.isPaused() && socket.writableLength > 0
      })
      const admitted = (yield* used()) - before - 1 // the reading is itself one request of the key
      expect(admitted).toBeLessThan(sent)
      const replies = yield* Effect.promise(() => connection.awaitAnswers(sent, 60_000))
      expect(replies).toHaveLength(sent)
      expect(replies.every((r) => r.status === 200 && r.body.length === 100)).toBe(true)
    }), { timeout: 120_000 })

  it.effect("past the cap on connections, a new connection gets a 503 Error body; below it again, it is served", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true, connections: { maxConnections: 3 } })
      const sockets = yield* ServerSockets.watch
      const held = yield* Effect.all([RawHttp.connect(server.url), RawHttp.connect(server.url), RawHttp.connect(server.url)])
      const ending = yield* RawHttp.exchangeEnding(server.url, "GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n")
      const [refused] = RawHttp.answers(ending.raw)
      expectErrorBody(refused!, 503, "unavailable")
      expect(refused!.headers["retry-after"]).toBe("1")
      // No request was read: the id is the server's own, as on any answer.
      expect(refused!.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/)
      expect(ending.reset).toBe(false)
      // The server counts a connection out when its side closes: wait for that, not for time.
      const closing = sockets.of(held[0].socket)
      expect(closing).toBeDefined()
      held[0].socket.destroy()
      yield* ServerSockets.closed(closing!)
      const [served] = RawHttp.answers(yield* RawHttp.exchange(server.url, "GET /v1/pets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
      expectErrorBody(served!, 401, "unauthorized")
    }))

  it.effect("a client that half-closes after pipelined requests still reads every answer", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const requests = Array.from({ length: 3 }, (_, i) => RawHttp.request("POST", "/v1/pets", { key, json: { name: `half ${i}`, categoryId: 1 } }))
      const ending = yield* RawHttp.exchangeEnding(server.url, requests.join(""), 5_000, true)
      expect(RawHttp.answers(ending.raw).map((r) => r.status)).toEqual([201, 201, 201])
    }))

  it.effect("a client that half-closes after a valid and a malformed request reads the 201, then the 400", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const valid = RawHttp.request("POST", "/v1/pets", { key, json: { name: "!", categoryId: 1 } })
      const ending = yield* RawHttp.exchangeEnding(server.url, valid + "GET /v1/pets HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 5_000, true)
      const replies = RawHttp.answers(ending.raw)
      expect(replies.map((r) => r.status)).toEqual([201, 400])
      expectErrorBody(replies[1]!, 400, "invalid_request")
    }))

  it.effect("a chunked body refused as too large and then broken gets its 413 and no second answer", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const first = RawHttp.request("POST", "/v1/messages", { key, json: { message: "" } })
      const chunks = "1\r\nx\r\n".repeat(70_000)
      const oversize = `POST /v1/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n${chunks}0\r\nBad Trailer\r\n\r\n`
      const after = RawHttp.request("POST", "/v1/pets", { key, json: { name: "after", categoryId: 1 } })
      const replies = RawHttp.answers(yield* RawHttp.exchange(server.url, first + oversize + after))
      expect(replies.map((r) => r.status)).toEqual([202, 413])
      const listed = yield* server.get("/v1/pets", key)
      expect(listed.body).toEqual([])
    }))

  it.effect("a request pipelined after one the server answers with Connection: close is not carried out", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const after = RawHttp.request("POST", "/v1/pets", { key, json: { name: "after", categoryId: 1 } })
      const oversize = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n${"1\r\nx\r\n".repeat(70_000)}0\r\n\r\n`
      for (let i = 0; i < 5; i++) {
        const replies = RawHttp.answers(yield* RawHttp.exchange(server.url, oversize + after))
        expect(replies.map((r) => r.status)).toEqual([413])
      }
      const noHost = RawHttp.answers(yield* RawHttp.exchange(server.url, "GET /v1/pets HTTP/1.1\r\n\r\n" + after))
      expect(noHost.map((r) => r.status)).toEqual([400])
      const expectation = RawHttp.answers(yield* RawHttp.exchange(server.url, RawHttp.request("GET", "/v1/pets", { key, headers: "Expect: nothing\r\n" }) + after))
      expect(expectation.map((r) => r.status)).toEqual([417])
      expect((yield* server.get("/v1/pets", key)).body).toEqual([])
    }))

  it.effect("an HTTP/1.0 request pipelined behind a running one is answered, and closes the connection", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const first = RawHttp.request("POST", "/v1/pets", { key, json: { name: "first", categoryId: 1 } })
      const old = `GET /v1/pets?limit=1 HTTP/1.0\r\nAuthorization: Bearer ${key}\r\n\r\n`
      const replies = RawHttp.answers((yield* RawHttp.exchange(server.url, first + old)).replace("HTTP/1.0 ", "HTTP/1.1 "))
      expect(replies.map((r) => r.status)).toEqual([201, 200])
    }))

  it.effect("CONNECT pipelined after a request is answered after it, then the connection closes", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const post = RawHttp.request("POST", "/v1/pets", { key, json: { name: "before connect", categoryId: 1 } })
      const replies = RawHttp.answers(yield* RawHttp.exchange(server.url, post + "CONNECT example.com:80 HTTP/1.1\r\nHost: x\r\n\r\n"))
      expect(replies.map((r) => r.status)).toEqual([201, 405])
      expectErrorBody(replies[1]!, 405, "method_not_allowed")
      // A CONNECT behind a refused body, read while the connection lingers, is dropped; the server stays up.
      const big = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n${"a".repeat(100_000)}`
      const after = RawHttp.answers(yield* RawHttp.exchange(server.url, big + "CONNECT example.com:80 HTTP/1.1\r\nHost: x\r\n\r\n"))
      expect(after.map((r) => r.status)).toEqual([413])
      expect((yield* server.get("/v1/pets", key)).status).toBe(200)
    }))

  it.effect("Expect must be exactly 100-continue: anything else, 100-continue-ish included, is 417 expectation_failed", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const [refused] = RawHttp.answers(yield* RawHttp.exchange(server.url, RawHttp.request("GET", "/v1/pets", { key, headers: "Expect: 100-continue-ish\r\n" })))
      expectErrorBody(refused!, 417, "expectation_failed")
      const raw = yield* RawHttp.exchange(server.url, RawHttp.request("POST", "/v1/pets", { key, json: { name: "continued", categoryId: 1 }, headers: "Expect: 100-continue\r\nConnection: close\r\n" }))
      expect(raw.startsWith("HTTP/1.1 100 Continue\r\n\r\n")).toBe(true)
      expect(RawHttp.answers(raw.slice("HTTP/1.1 100 Continue\r\n\r\n".length))[0]!.status).toBe(201)
    }))

  it.effect("a request that asks to upgrade the protocol is answered with Connection: close (nothing after it is read)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ quiet: true })
      const { key } = yield* server.enterprise(100_000)
      const ending = yield* RawHttp.exchangeEnding(
        server.url,
        RawHttp.request("GET", "/v1/pets", { key, headers: "Connection: Upgrade\r\nUpgrade: websocket\r\n" }) + "GET /v1/pets HTTP/1.1\r\nbroken\r\n\r\n",
        3_000
      )
      const replies = RawHttp.answers(ending.raw)
      expect(replies.map((r) => r.status)).toEqual([200])
      expect(replies[0]!.headers["connection"]).toBe("close")
    }))

  it.effect("shutdown completes while a CONNECT connection is still sending", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const server = yield* TestServer.start({ quiet: true }).pipe(Scope.provide(scope))
      const connection = yield* RawHttp.connect(server.url).pipe(Scope.provide(scope))
      connection.write("CONNECT example.com:80 HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHo")
      yield* Effect.promise(() => connection.awaitAnswers(1))
      connection.write("st: x\r\n")
      yield* Scope.close(scope, Exit.void)
      // Shut down: the connection is closed and the port no longer accepts any.
      yield* ServerSockets.closed(connection.socket)
      const { hostname, port } = new URL(server.url)
      const refused = yield* Effect.promise(() =>
        new Promise<string>((resolve) => {
          const probe = Net.connect(Number(port), hostname, () => {
            probe.destroy()
            resolve("connected")
          })
          probe.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
        })
      )
      expect(refused).toBe("ECONNREFUSED")
    }), { timeout: 30_000 })
})
