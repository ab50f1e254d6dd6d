/**
 * One test per undocumented field of node:http the connection management relies on
 * (src/internal/hosts/nodeInternals.ts): each fails if a node release changes what the field means.
 */
import { describe, expect, it } from "vitest"
import * as Http from "node:http"
import * as Net from "node:net"
import * as NodeInternals from "../../src/internal/hosts/nodeInternals.js"
import { answers, echoPath, get, send, withServer } from "./PlainServer.js"

const WEIGHT = 2 ** 30

describe("node's internals", () => {
  it("httpAllowHalfOpen: a client that half-closes after its request still reads the answer", async () => {
    const server = Http.createServer((request, response) => {
      // Answer only once node has seen the client's FIN.
      request.socket.once("end", () => echoPath(request, response))
    })
    NodeInternals.allowHalfOpen(server)
    const ending = await withServer(server, (url) => send(url, get("/after-fin"), { halfClose: true }))
    expect(answers(ending.raw).map((a) => a.text)).toEqual(["/after-fin"])
  })

  it("_paused: node sets it when a connection's answers pile up, and clears it (resuming) when they drain", async () => {
    const seen: Array<boolean> = []
    let first: Http.ServerResponse | undefined
    const server = Http.createServer((request, response) => {
      if (first === undefined) {
        first = response
        // Unsent data above the high-water mark: node stops reading before the next request.
        NodeInternals.pendingData(response)!(WEIGHT)
        return
      }
      seen.push(NodeInternals.isPaused(request.socket), request.socket.isPaused())
      NodeInternals.pendingData(first)!(-WEIGHT)
      seen.push(NodeInternals.isPaused(request.socket), request.socket.isPaused())
      first.end()
      response.end()
    })
    await withServer(server, (url) => send(url, get("/1") + get("/2", "Connection: close\r\n")))
    expect(seen).toEqual([true, true, false, false])
  })

  it("_onPendingData: a weight on the count keeps a connection paused by _paused until the weight is taken off", async () => {
    const seen: Array<boolean> = []
    const server = Http.createServer((request, response) => {
      const socket = request.socket
      const pending = NodeInternals.pendingData(response)
      expect(pending).toBeTypeOf("function")
      NodeInternals.setPaused(socket, true)
      socket.pause()
      pending!(WEIGHT)
      seen.push(socket.isPaused())
      pending!(-WEIGHT)
      seen.push(socket.isPaused(), NodeInternals.isPaused(socket))
      echoPath(request, response)
    })
    await withServer(server, (url) => send(url, get("/", "Connection: close\r\n")))
    expect(seen).toEqual([true, false, false])
  })

  it("_header: the header block node wrote, empty before, with the Connection: close node adds itself", async () => {
    const blocks: Array<string> = []
    const server = Http.createServer((request, response) => {
      blocks.push(NodeInternals.headerBlock(response))
      echoPath(request, response)
      blocks.push(NodeInternals.headerBlock(response))
    })
    // HTTP/1.0 without keep-alive: node itself closes, and writes so.
    await withServer(server, (url) => send(url, "GET /old HTTP/1.0\r\n\r\n"))
    expect(blocks[0]).toBe("")
    expect(blocks[1]).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(blocks[1]).toMatch(/\r\nConnection: close\r\n/)
    expect(blocks[1]).toMatch(/\r\n\r\n$/)
  })

  it("parser.incoming: the request node's parser is reading, its body not yet complete", async () => {
    const found: Array<unknown> = []
    const server = Http.createServer((request, response) => {
      found.push(NodeInternals.requestBeingRead(request.socket) === request, request.complete)
      echoPath(request, response)
    })
    const body = "POST /partly HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nConnection: close\r\n\r\nabc"
    const ending = await withServer(server, (url) => send(url, body))
    expect(found).toEqual([true, false])
    expect(answers(ending.raw).map((a) => a.text)).toEqual(["/partly"])
  })

  it("destroySoon: what node calls to close the connection after an answer that ends it", async () => {
    const calls: Array<string> = []
    const server = Http.createServer(echoPath)
    server.on("connection", (socket: Net.Socket) =>
      NodeInternals.onDestroySoon(socket, () => {
        calls.push("destroySoon")
        socket.end()
      }))
    const ending = await withServer(server, (url) => send(url, get("/last", "Connection: close\r\n")))
    expect(answers(ending.raw).map((a) => a.text)).toEqual(["/last"])
    expect(calls).toEqual(["destroySoon"])
  })

  it("connection listeners: node's own is the server's only one, and a connection it is called with is served", async () => {
    const server = Http.createServer(echoPath)
    const taken = NodeInternals.takeConnectionListeners(server)
    expect(taken).toHaveLength(1)
    expect(server.listenerCount("connection")).toBe(0)
    const accepted: Array<Net.Socket> = []
    server.on("connection", (socket: Net.Socket) => {
      accepted.push(socket)
      for (const listener of taken) listener.call(server, socket)
    })
    const ending = await withServer(server, (url) => send(url, get("/served", "Connection: close\r\n")))
    expect(accepted).toHaveLength(1)
    expect(answers(ending.raw).map((a) => a.text)).toEqual(["/served"])
  })

  it("the handed-in mark: set on node's request by this package only", async () => {
    const marks: Array<boolean> = []
    const server = Http.createServer((request, response) => {
      marks.push(NodeInternals.handedInIncomplete(request))
      NodeInternals.markHandedInIncomplete(request)
      marks.push(NodeInternals.handedInIncomplete(request))
      echoPath(request, response)
    })
    await withServer(server, (url) => send(url, get("/", "Connection: close\r\n")))
    expect(marks).toEqual([false, true])
  })

  it("a socket without node's parser has no request being read", () => {
    expect(NodeInternals.requestBeingRead(new Net.Socket())).toBeUndefined()
  })
})
