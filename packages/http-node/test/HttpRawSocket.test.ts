/**
 * Requests node:http would answer by itself with an empty body, or not at all, through a raw
 * socket: each gets an Error body with `Content-Type: application/json`.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Net from "node:net"
import { AdminApi } from "../src/AdminApi.js"
import { Api } from "../src/Api.js"
import * as Routes from "../src/internal/routes.js"
import { answers, exchange } from "./support/RawHttp.js"
import { TestServer } from "./support/TestServer.js"

layer(TestServer.layer({ quiet: true }), { excludeTestServices: true })("HTTP over a raw socket", (it) => {
  it.effect("Expect other than 100-continue: 417 expectation_failed with an Error body", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const [reply] = answers(yield* exchange(server.url, "GET /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: the-unexpected\r\n\r\n"))
      expect(reply!.status).toBe(417)
      expect(reply!.headers["content-type"]).toBe("application/json")
      expect(reply!.body).toMatchObject({ code: "expectation_failed", status: 417 })
    }))

  it.effect("an HTTP/1.1 request without Host: 400 invalid_request with an Error body", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const [reply] = answers(yield* exchange(server.url, "GET /v1/pets HTTP/1.1\r\n\r\n"))
      expect(reply!.status).toBe(400)
      expect(reply!.headers["content-type"]).toBe("application/json")
      expect(reply!.body).toMatchObject({ code: "invalid_request", status: 400 })
    }))

  it.effect("CONNECT: 405 method_not_allowed with Allow and an Error body", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const [reply] = answers(yield* exchange(server.url, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"))
      expect(reply!.status).toBe(405)
      // The methods of the application's routes, from the API definitions.
      expect(reply!.headers["allow"]).toBe(Routes.methods([Api, AdminApi]).join(", "))
      expect(reply!.body.message).toBe(`CONNECT is not allowed here; allowed: ${reply!.headers["allow"]}.`)
      expect(reply!.body).toMatchObject({ code: "method_not_allowed", status: 405 })
      expect(reply!.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/)
      // A well-formed id of the client's is returned as given.
      const [given] = answers(yield* exchange(server.url, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Request-Id: tunnel-7\r\n\r\n"))
      expect(given!.status).toBe(405)
      expect(given!.headers["x-request-id"]).toBe("tunnel-7")
    }))

  it.effect("a malformed request on a keep-alive connection already answered once gets a 400 Error body, then the close", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const socketAnswers = yield* Effect.promise(() =>
        new Promise<string>((resolve) => {
          const { hostname, port } = new URL(server.url)
          const socket = Net.connect(Number(port), hostname)
          let received = ""
          let sentSecond = false
          const timer = setTimeout(() => socket.destroy(), 5_000)
          socket.on("data", (chunk) => {
            received += chunk.toString("latin1")
            // Once the first answer is in, a malformed second request on the same connection.
            if (!sentSecond && received.includes("\r\n\r\n")) {
              sentSecond = true
              setTimeout(() => socket.write("THIS IS NOT HTTP\r\n\r\n"), 50)
            }
          })
          socket.on("close", () => {
            clearTimeout(timer)
            resolve(received)
          })
          socket.on("error", () => {})
          socket.write("GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n")
        })
      )
      const replies = answers(socketAnswers)
      expect(replies.map((r) => r.status)).toStrictEqual([401, 400])
      expect(replies[1]!.headers["content-type"]).toBe("application/json")
      expect(replies[1]!.body).toMatchObject({ code: "invalid_request", status: 400 })
    }))
})

/** Sends `first`, then nothing more; resolves with what came back and when (ms after the start). */
const stall = (url: string, first: string) =>
  Effect.promise(() =>
    new Promise<{ readonly raw: string; readonly after: number }>((resolve) => {
      const { hostname, port } = new URL(url)
      const started = Date.now()
      const socket = Net.connect(Number(port), hostname)
      let raw = ""
      let after = -1
      const timer = setTimeout(() => socket.destroy(), 10_000) // a hang ends the test, not its assertions
      socket.on("data", (chunk) => {
        if (after < 0) after = Date.now() - started
        raw += chunk.toString("latin1")
      })
      socket.on("close", () => {
        clearTimeout(timer)
        resolve({ raw, after })
      })
      socket.on("error", () => {})
      socket.write(first)
    })
  )

// The bounds made short (1 s for headers, 2 s for a whole request) so the test is quick; the
// production ones (10 s, 30 s) are the same code with other numbers. The promise (docs/decisions.md,
// Timeouts) is a 408 within a second of the bound, node looking for late requests every second: the
// answer may not come before the bound, and must come within it plus that second plus a stated
// margin of 2 s for this machine's scheduling.
const CHECK_INTERVAL_MS = 1_000
const MARGIN_MS = 2_000
layer(TestServer.layer({ quiet: true, timeouts: { headers: "1 second", request: "2 seconds" } }), { excludeTestServices: true })(
  "HTTP slow clients",
  (it) => {
    it.effect("headers not complete within the headers bound: 408 request_timeout with an Error body, at the bound", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { after, raw } = yield* stall(server.url, "GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        const [reply] = answers(raw)
        expect(reply!.status).toBe(408)
        expect(reply!.body).toMatchObject({ code: "request_timeout", status: 408 })
        expect(after).toBeGreaterThanOrEqual(1_000)
        expect(after).toBeLessThan(1_000 + CHECK_INTERVAL_MS + MARGIN_MS)
      }))

    it.effect("a body not complete within the request bound: 408 request_timeout with an Error body, at the bound", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { after, raw } = yield* stall(
          server.url,
          "POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":"
        )
        const [reply] = answers(raw)
        expect(reply!.status).toBe(408)
        expect(reply!.body).toMatchObject({ code: "request_timeout", status: 408 })
        expect(after).toBeGreaterThanOrEqual(2_000)
        expect(after).toBeLessThan(2_000 + CHECK_INTERVAL_MS + MARGIN_MS)
      }))
  }
)
