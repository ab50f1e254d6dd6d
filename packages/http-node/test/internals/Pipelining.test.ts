/** The order of a connection's requests (src/internal/hosts/connections/pipelining.ts), over a real socket. */
import { describe, expect, it } from "vitest"
import * as Http from "node:http"
import * as Connections from "../../src/Connections.js"
import type { ConnectionLimits } from "../../src/internal/hosts/connections/limits.js"
import { answers, echoPath, get, send, withServer } from "./PlainServer.js"

const limits = (maxInFlight: number): ConnectionLimits => ({ maxConnections: 10, maxInFlight, maxBufferedBytes: 65_536, lingerMillis: 1_000 })

describe("pipelining", () => {
  it("the requests of a connection run at most maxInFlight at a time, start in order, and are answered in order", async () => {
    const started: Array<string> = []
    let running = 0
    let most = 0
    const server = Http.createServer()
    Connections.install(server, (request, response) => {
      started.push(request.url!)
      most = Math.max(most, ++running)
      // (Before node's close, on which the next request starts.)
      response.once("finish", () => running--)
      // Answered later than read: the next request waits for it.
      setImmediate(() => echoPath(request, response))
    }, limits(2), ["GET"])
    const ending = await withServer(server, (url) => send(url, get("/1") + get("/2") + get("/3") + get("/4", "Connection: close\r\n")))
    expect(started).toEqual(["/1", "/2", "/3", "/4"])
    expect(most).toBe(2)
    expect(answers(ending.raw).map((a) => a.text)).toEqual(["/1", "/2", "/3", "/4"])
  })

  it("an error that ends the connection is answered after every request read before it", async () => {
    const server = Http.createServer()
    let slow: (() => void) | undefined
    Connections.install(server, (request, response) => {
      slow = () => echoPath(request, response)
    }, limits(16), ["GET"])
    // Answered only once node has found the malformed request after it.
    server.on("clientError", () => slow?.())
    const ending = await withServer(server, (url) => send(url, get("/slow") + "NOT HTTP\r\n\r\n"))
    expect(answers(ending.raw).map((a) => [a.status, a.body?.code ?? a.text])).toEqual([[200, "/slow"], [400, "invalid_request"]])
    expect(ending.reset).toBe(false)
  })

  it("nothing read after a request that asks to close the connection is carried out", async () => {
    const started: Array<string> = []
    const server = Http.createServer()
    Connections.install(server, (request, response) => {
      started.push(request.url!)
      echoPath(request, response)
    }, limits(16), ["GET"])
    const ending = await withServer(server, (url) => send(url, get("/last", "Connection: close\r\n") + get("/never")))
    expect(started).toEqual(["/last"])
    expect(answers(ending.raw).map((a) => a.text)).toEqual(["/last"])
  })
})
