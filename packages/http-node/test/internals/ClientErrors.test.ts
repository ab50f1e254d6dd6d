/** What node hands over instead of a request (src/internal/hosts/connections/clientErrors.ts), over a real socket. */
import { describe, expect, it } from "vitest"
import * as Http from "node:http"
import * as Connections from "../../src/Connections.js"
import type { ConnectionLimits } from "../../src/internal/hosts/connections/limits.js"
import { answers, echoPath, get, send, withServer } from "./PlainServer.js"

const limits: ConnectionLimits = { maxConnections: 10, maxInFlight: 16, maxBufferedBytes: 65_536, lingerMillis: 1_000 }

describe("client errors", () => {
  it("a request node cannot parse: 400 invalid_request with an Error body and a new id, then the connection closes", async () => {
    const server = Http.createServer()
    Connections.install(server, echoPath, limits, ["GET"])
    const ending = await withServer(server, (url) => send(url, "NOT HTTP\r\n\r\n"))
    const [reply, ...more] = answers(ending.raw)
    expect(reply).toMatchObject({ status: 400, body: { code: "invalid_request", status: 400 } })
    expect(reply!.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/)
    expect(reply!.headers["connection"]).toBe("close")
    expect(more).toEqual([])
  })

  it("CONNECT: 405 with the methods the server was given, after the request before it", async () => {
    const server = Http.createServer()
    Connections.install(server, echoPath, limits, ["GET", "HEAD", "PATCH"])
    const ending = await withServer(server, (url) => send(url, get("/first") + "CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\nX-Request-Id: tunnel-7\r\n\r\n"))
    const [first, connect] = answers(ending.raw)
    expect(first!.text).toBe("/first")
    expect(connect!.status).toBe(405)
    expect(connect!.headers["allow"]).toBe("GET, HEAD, PATCH")
    expect(connect!.headers["x-request-id"]).toBe("tunnel-7")
    expect(connect!.body).toEqual({ code: "method_not_allowed", message: "CONNECT is not allowed here; allowed: GET, HEAD, PATCH.", status: 405 })
  })

  it("a body cut off by the request timeout: 408 with the request's own id; the request is not carried out", async () => {
    const server = Http.createServer({ requestTimeout: 300, headersTimeout: 300, connectionsCheckingInterval: 50 })
    const answered: Array<string> = []
    // Like NodeHandler, the listener waits for a whole body, which never comes.
    Connections.install(server, (request, response) => request.on("end", () => {
      answered.push(request.url!)
      echoPath(request, response)
    }).resume(), limits, ["GET"])
    const ending = await withServer(server, (url) =>
      send(url, "POST /cut HTTP/1.1\r\nHost: x\r\nX-Request-Id: cut-1\r\nContent-Length: 10\r\n\r\nabc"))
    const [reply, ...more] = answers(ending.raw)
    expect(reply).toMatchObject({ status: 408, body: { code: "request_timeout" } })
    expect(reply!.headers["x-request-id"]).toBe("cut-1")
    expect(more).toEqual([])
    expect(answered).toEqual([])
  })
})
