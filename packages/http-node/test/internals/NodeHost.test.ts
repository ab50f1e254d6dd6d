/**
 * The node host on its own, through real HTTP on 127.0.0.1: a stand-in application records what it
 * was handed (method, URL, mount, headers, body, the host's request id) and answers what the test
 * says; the host's part is the body read or known, the run, and the answer written.
 */
import { Effect } from "effect"
import * as Http from "node:http"
import { describe, expect, it } from "vitest"
import { App } from "../../src/App.js"
import type { AppRequest, BodyResult } from "../../src/AppRequest.js"
import type { AppResponse } from "../../src/AppResponse.js"
import * as NodeHost from "../../src/internal/hosts/nodeHost.js"
import { BODY_LIMIT } from "../../src/internal/limits.js"
import { answers, get, send, withServer } from "./PlainServer.js"

interface Seen {
  readonly request: AppRequest
  readonly body: BodyResult
}

/** A host over an application that records each request and answers with `respond`. */
const hostOf = (respond: (seen: Seen) => Effect.Effect<AppResponse>) => {
  const seen: Array<Seen> = []
  const app = App.of({
    handle: (request) =>
      Effect.flatMap(request.readBody(BODY_LIMIT), (body) => {
        const entry = { request, body }
        seen.push(entry)
        return respond(entry)
      })
  })
  const host = Effect.runSync(Effect.provideService(NodeHost.make, App, app))
  return { host, seen }
}

const ok = (body: string): AppResponse => ({ status: 200, headers: { "Content-Type": "text/plain" }, body })

const bodyText = (body: BodyResult): string => (body._tag === "Body" ? Buffer.from(body.bytes).toString() : body._tag)

/** A node server whose listener hands every request to `host` at the root. */
const serverOf = (host: NodeHost.NodeHost) =>
  Http.createServer((request, response) => NodeHost.serve(host, request, request.url ?? "/", "", response, host.write))

describe("NodeHost.serve", () => {
  it("hands in the method, the URL, the mount, the headers and the socket's address, and writes the answer with its length", async () => {
    const { host, seen } = hostOf(() => Effect.succeed(ok("hello")))
    const server = Http.createServer((request, response) => NodeHost.serve(host, request, "/v1/pets?limit=2", "/petstore", response, host.write))
    await withServer(server, async (url) => {
      const reply = await fetch(`${url}/petstore/v1/pets?limit=2`, { headers: { "x-extra": "1" } })
      expect(reply.status).toBe(200)
      expect(reply.headers.get("content-length")).toBe("5")
      expect(await reply.text()).toBe("hello")
    })
    expect(seen).toHaveLength(1)
    const [{ body, request }] = seen as [Seen]
    expect(request.method).toBe("GET")
    expect(request.url).toBe("/v1/pets?limit=2")
    expect(request.basePath).toBe("/petstore")
    expect(request.header("x-extra")).toBe("1")
    expect(request.remoteAddress).toBe("127.0.0.1")
    expect(bodyText(body)).toBe("")
  })

  it("reads a body before the application runs (one chunk or many), and one past the limit as too large", async () => {
    const { host, seen } = hostOf(({ body }) => Effect.succeed(ok(bodyText(body))))
    await withServer(serverOf(host), async (url) => {
      const small = await fetch(`${url}/x`, { method: "POST", body: "{\"name\":\"Rex\"}" })
      expect(await small.text()).toBe("{\"name\":\"Rex\"}")
      const chunked = await send(url, "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n")
      expect(answers(chunked.raw)[0]?.text).toBe("abcdef")
      const declared = await send(url, `POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: ${BODY_LIMIT + 1}\r\nConnection: close\r\n\r\n`)
      expect(answers(declared.raw)[0]?.text).toBe("TooLarge")
    })
    expect(seen.map((s) => s.body._tag)).toEqual(["Body", "Body", "TooLarge"])
  })

  it("takes a body a host's parser left on the request, and one read without leaving anything as consumed", async () => {
    const { host } = hostOf(({ body }) => Effect.succeed(ok(bodyText(body))))
    const server = Http.createServer((request, response) => {
      if (request.url === "/parsed") {
        ;(request as { body?: unknown }).body = { parsed: true }
        request.resume()
        return request.on("end", () => NodeHost.serve(host, request, "/parsed", "", response, host.write))
      }
      request.resume()
      request.on("end", () => NodeHost.serve(host, request, "/read", "", response, host.write))
    })
    await withServer(server, async (url) => {
      const parsed = await fetch(`${url}/parsed`, { method: "POST", body: "{\"parsed\": true }" })
      expect(await parsed.text()).toBe("{\"parsed\":true}")
      const read = await fetch(`${url}/read`, { method: "POST", body: "{}" })
      expect(await read.text()).toBe("Consumed")
    })
  })

  it("answers a request the application cannot answer with the one 500 Error body", async () => {
    const { host } = hostOf(() => Effect.die(new Error("boom")))
    await withServer(serverOf(host), async (url) => {
      const reply = await fetch(`${url}/x`)
      expect(reply.status).toBe(500)
      expect(await reply.json()).toMatchObject({ code: "internal_error", status: 500 })
    })
  })

  it("writes bytes in chunks, and only the header block to HEAD", async () => {
    const bytes = new Uint8Array(100_000).fill(97)
    const { host } = hostOf(() => Effect.succeed({ status: 200, headers: { "Content-Length": String(bytes.length) }, body: undefined, bytes }))
    await withServer(serverOf(host), async (url) => {
      const reply = await fetch(`${url}/asset`)
      expect((await reply.arrayBuffer()).byteLength).toBe(bytes.length)
      const head = await send(url, "HEAD /asset HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      expect(head.raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
      expect(head.raw.endsWith("\r\n\r\n")).toBe(true)
    })
  })

  it("writes the answers of pipelined requests, each to its own request, in order", async () => {
    const { host } = hostOf(({ request }) => Effect.succeed(ok(request.url)))
    await withServer(serverOf(host), async (url) => {
      const ending = await send(url, get("/a") + get("/b") + get("/c", "Connection: close\r\n"))
      expect(answers(ending.raw).map((a) => a.text)).toEqual(["/a", "/b", "/c"])
    })
  })

  it("gives the application the host's request id (Fastify's, or one a middleware set)", async () => {
    const { host, seen } = hostOf(() => Effect.succeed(ok("")))
    const server = Http.createServer((request, response) => {
      ;(request as { id?: unknown }).id = 42
      NodeHost.serve(host, request, "/x", "", response, host.write, undefined, request.url === "/given" ? "given-id" : undefined)
    })
    await withServer(server, async (url) => {
      await fetch(`${url}/set`)
      await fetch(`${url}/given`)
    })
    expect(seen.map((s) => s.request.hostRequestId)).toEqual(["42", "given-id"])
  })

  it("answers through the caller's target when it is not node's response", async () => {
    const { host } = hostOf(() => Effect.succeed(ok("to the target")))
    const server = Http.createServer((request, response) =>
      NodeHost.serve(host, request, "/x", "", response, (target, answer) => {
        target.writeHead(202, { "x-answered-by": "target" })
        target.end(answer.body)
      }))
    await withServer(server, async (url) => {
      const reply = await fetch(`${url}/x`)
      expect(reply.status).toBe(202)
      expect(reply.headers.get("x-answered-by")).toBe("target")
      expect(await reply.text()).toBe("to the target")
    })
  })
})

describe("NodeHost.notMounted and NodeHost.refuse", () => {
  it("answer with an Error body and the request's id; refuse closes the connection", async () => {
    const server = Http.createServer((request, response) =>
      request.url === "/outside"
        ? NodeHost.notMounted(request, response)
        : NodeHost.refuse(request, response, { status: 400, code: "invalid_request", body: "{\"code\":\"invalid_request\"}" }))
    await withServer(server, async (url) => {
      const outside = await fetch(`${url}/outside`, { headers: { "x-request-id": "abc-1" } })
      expect(outside.status).toBe(404)
      expect(outside.headers.get("x-request-id")).toBe("abc-1")
      expect(await outside.json()).toMatchObject({ code: "not_found", status: 404 })
      const refused = await send(url, get("/refused") + get("/after"))
      const replies = answers(refused.raw)
      expect(replies.map((r) => r.status)).toEqual([400])
      expect(replies[0]?.headers.connection).toBe("close")
    })
  })
})
