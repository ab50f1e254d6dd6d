/**
 * The fuzzer's checker must be able to fail: fake servers over raw sockets answer badly on purpose
 * (a 500, an error as text/plain, a wrong Error body, no rate-limit headers, a lost pipelined
 * answer, a reset, a hang, bytes that are not HTTP) and each must be reported as its own kind,
 * while a server that answers well passes. The strict response reader is checked on its own.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Net from "node:net"
import * as Oracle from "../src/fuzz/Oracle.js"
import * as RawClient from "../src/fuzz/RawClient.js"
import type { ConnectionScript, RawRequest } from "../src/fuzz/RawRequest.js"
import { build, type FuzzTarget } from "../src/fuzz/Requests.js"
import * as ResponseReader from "../src/fuzz/ResponseReader.js"

const ERROR = (status: number) => JSON.stringify({ code: "x", message: "m", status })
const RATE_LIMIT = "X-RateLimit-Limit: 60\r\nX-RateLimit-Remaining: 59\r\nX-RateLimit-Reset: 1\r\nRateLimit-Policy: \"minute\";q=60;w=60\r\nRateLimit: \"minute\";r=59;t=1\r\n"

/** An answer with a body and the headers given (Content-Length added), with `X-Request-Id` unless `id` is false. */
const answer = (status: number, body: string, headers = `Content-Type: application/json\r\n${RATE_LIMIT}`, id = true) =>
  `HTTP/1.1 ${status} X\r\n${id ? "X-Request-Id: fake-1\r\n" : ""}${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

/**
 * A fake server: `reply(request, index, socket)` is called for each request head it reads (the
 * scripts below send no bodies) and writes what it wants; `undefined` writes nothing.
 */
const fakeServer = async (reply: (head: string, index: number, socket: Net.Socket) => string | undefined) => {
  const server = Net.createServer((socket) => {
    let buffer = ""
    let index = 0
    socket.on("error", () => {})
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1")
      for (let end = buffer.indexOf("\r\n\r\n"); end !== -1; end = buffer.indexOf("\r\n\r\n")) {
        const head = buffer.slice(0, end)
        buffer = buffer.slice(end + 4)
        const out = reply(head, index++, socket)
        if (out !== undefined && !socket.destroyed) socket.write(out)
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as Net.AddressInfo).port
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const target: FuzzTarget = { host: "127.0.0.1", key: "psk_test_00000000000000000000000000000000", prefix: "/v1" }
const get = (path = "/v1/pets", statuses: ReadonlyArray<number> = [200, 404]): RawRequest =>
  build(target, { kind: "valid", note: `GET ${path}`, target: path, statuses })
const script = (requests: ReadonlyArray<RawRequest>, rest: Partial<ConnectionScript> = {}): ConnectionScript => ({
  requests,
  delivery: "pipelined",
  cuts: [],
  pauseMs: 0,
  halfClose: false,
  ...rest
})

/** Runs `connection` against a fake server and returns the kinds of failure the oracle found. */
const judgeAgainst = async (
  reply: (head: string, index: number, socket: Net.Socket) => string | undefined,
  connection: ConnectionScript,
  deadlineMs = 2_000
) => {
  const server = await fakeServer(reply)
  try {
    const outcome = await RawClient.run(connection, { host: "127.0.0.1", port: server.port, deadlineMs })
    return { outcome, kinds: [...new Set(Oracle.judge(connection, outcome).map((f) => f.kind))] }
  } finally {
    await server.close()
  }
}

describe("the fuzz oracle over raw sockets", () => {
  it("passes a server that answers every pipelined request, in order, with the headers due", async () => {
    const { kinds, outcome } = await judgeAgainst(
      (head) => head.startsWith("GET /v1/nowhere") ? answer(404, ERROR(404)) : answer(200, "[]"),
      script([get(), get("/v1/nowhere"), get()], { cuts: [5, 40, 77] })
    )
    expect(kinds).toStrictEqual([])
    expect(outcome.answers.map((a) => a.status)).toStrictEqual([200, 404, 200])
    expect(outcome.end).toBe("done")
  })

  it("fails a 500, even with an Error body", async () => {
    const { kinds } = await judgeAgainst(() => answer(500, ERROR(500)), script([get()]))
    expect(kinds).toContain("server-error")
  })

  it("fails an error answer sent as text/plain", async () => {
    const { kinds } = await judgeAgainst(() => answer(404, ERROR(404), `Content-Type: text/plain\r\n${RATE_LIMIT}`), script([get()]))
    expect(kinds).toStrictEqual(["error-not-json"])
  })

  it("fails an error body that is not exactly {code, message, status} with the HTTP status", async () => {
    for (const body of [ERROR(400), JSON.stringify({ code: "x", message: "m" }), JSON.stringify({ code: "x", message: "m", status: 404, extra: 1 }), "not json"]) {
      const { kinds } = await judgeAgainst(() => answer(404, body), script([get()]))
      expect(kinds, body).toStrictEqual(["error-body"])
    }
  })

  it("fails an answer of the public API without the rate-limit headers, and a 429 without Retry-After", async () => {
    const missing = await judgeAgainst(() => answer(200, "[]", "Content-Type: application/json\r\n"), script([get()]))
    expect(missing.kinds).toStrictEqual(["rate-limit-headers"])
    const noRetry = await judgeAgainst(() => answer(429, ERROR(429)), script([get("/v1/pets", [200, 429])]))
    expect(noRetry.kinds).toStrictEqual(["rate-limit-headers"])
  })

  it("fails an answer without X-Request-Id", async () => {
    const { kinds } = await judgeAgainst(() => answer(200, "[]", `Content-Type: application/json\r\n${RATE_LIMIT}`, false), script([get()]))
    expect(kinds).toStrictEqual(["request-id"])
  })

  it("fails an answer to a request with a valid key without the rate-limit headers, whatever its target, unless it is a refusal before authentication", async () => {
    const star = build(target, { kind: "target", note: "the asterisk form", method: "OPTIONS", target: "*" })
    expect(star.rateLimited).toBe(false) // not predicted from the target ...
    expect(star.keyed).toBe(true) // ... but it carries the key
    const closing = "Content-Type: application/json\r\nConnection: close\r\n"
    const bare = await judgeAgainst(() => answer(404, ERROR(404), "Content-Type: application/json\r\n"), script([star]))
    expect(bare.kinds).toStrictEqual(["rate-limit-headers"])
    // A 404 that closes is still no refusal before authentication.
    const closeWith = (text: string) => (_head: string, _index: number, socket: Net.Socket) => void socket.end(text)
    const closed = await judgeAgainst(closeWith(answer(404, JSON.stringify({ code: "not_found", message: "m", status: 404 }), closing)), script([star]))
    expect(closed.kinds).toStrictEqual(["rate-limit-headers"])
    // A refused Expect, or a 400 invalid_request, that close the connection: refusals before authentication.
    for (const [status, code] of [[417, "expectation_failed"], [400, "invalid_request"]] as const) {
      const refused = await judgeAgainst(closeWith(answer(status, JSON.stringify({ code, message: "m", status }), closing)), script([star]))
      expect(refused.kinds, code).toStrictEqual([])
    }
    // Open paths need no key and are not limited: their answers are not held to it.
    const health = build(target, { kind: "target", note: "health", target: "http://x/healthz" })
    expect(health.keyed).toBe(false)
    const open = await judgeAgainst(() => answer(200, "{}", "Content-Type: application/json\r\n"), script([health]))
    expect(open.kinds).toStrictEqual([])
  })

  it("fails a status the request cannot get, and a broken request that is not refused with a 4xx", async () => {
    const wrong = await judgeAgainst(() => answer(201, "{}"), script([get("/v1/pets", [200])]))
    expect(wrong.kinds).toStrictEqual(["unexpected-status"])
    const garbage: RawRequest = { ...get(), kind: "garbage", framing: "broken", rateLimited: false, statuses: undefined }
    const accepted = await judgeAgainst(() => answer(200, "[]"), script([garbage]), 300)
    expect(accepted.kinds).toContain("unexpected-status")
  })

  it("fails a pipelined connection closed before its last owed answer (lost answer)", async () => {
    const { kinds, outcome } = await judgeAgainst(
      (_head, index, socket) => {
        if (index === 1) socket.end()
        return index === 0 ? answer(200, "[]") : undefined
      },
      script([get(), get(), get()])
    )
    expect(outcome.answers).toHaveLength(1)
    expect(kinds).toStrictEqual(["lost-answer"])
  })

  it("fails an answer to a later broken request sent before the answers owed ahead of it", async () => {
    const garbage: RawRequest = { ...get(), kind: "garbage", framing: "broken", rateLimited: false, statuses: undefined }
    const { kinds } = await judgeAgainst(
      (_head, index, socket) => {
        if (index > 0) return undefined
        // The connection's 400 goes out first, then the close: the GET's own answer is lost.
        socket.end(answer(400, ERROR(400), "Content-Type: application/json\r\nConnection: close\r\n"))
        return undefined
      },
      script([get(), garbage])
    )
    expect(kinds).toStrictEqual(["lost-answer"])
  })

  it("fails a reset where an answer is owed", async () => {
    const { kinds, outcome } = await judgeAgainst((_head, _index, socket) => {
      socket.resetAndDestroy()
      return undefined
    }, script([get()]))
    expect(outcome.end).toBe("reset")
    expect(kinds).toStrictEqual(["reset"])
  })

  it("fails a server that never answers (hang), and one that keeps the connection open after `Connection: close`", async () => {
    const hang = await judgeAgainst(() => undefined, script([get()]), 300)
    expect(hang.kinds).toStrictEqual(["hang"])
    const close = build(target, { kind: "valid", note: "close", target: "/v1/pets", headerLines: ["Connection: close"], asksClose: true })
    const open = await judgeAgainst(() => answer(200, "[]"), script([close]), 300)
    expect(open.kinds).toStrictEqual(["not-closed"])
  })

  it("fails bytes that are not an HTTP/1.1 answer, and answers nobody asked for", async () => {
    const garbled = await judgeAgainst(() => "HTTP/1.1 200\r\n\r\n", script([get()]))
    expect(garbled.kinds).toStrictEqual(["malformed-response"])
    const close = build(target, { kind: "valid", note: "close", target: "/v1/pets", headerLines: ["Connection: close"], asksClose: true })
    const extra = await judgeAgainst((_head, index, socket) => {
      if (index === 0) socket.write(answer(200, "[]") + answer(200, "[]") + answer(200, "[]"))
      return undefined
    }, script([close]), 300)
    expect(extra.kinds).toContain("unsolicited-answer")
  })

  it("fails a server that is not there", async () => {
    const server = await fakeServer(() => undefined)
    await server.close()
    const outcome = await RawClient.run(script([get()]), { host: "127.0.0.1", port: server.port, deadlineMs: 1_000 })
    expect(Oracle.judge(script([get()]), outcome).map((f) => f.kind)).toStrictEqual(["no-connection"])
  })
})

describe("the strict response reader", () => {
  const read = (text: string, methods: ReadonlyArray<string> = ["GET", "GET", "GET"], end = false) => {
    const reader = ResponseReader.make((i) => methods[i])
    const answers = [...reader.push(Buffer.from(text, "latin1")), ...(end ? reader.end() : [])]
    return { answers, error: reader.error(), interim: reader.interim() }
  }

  it("reads Content-Length, chunked (extensions, trailers) and close-delimited bodies, skips 1xx, and reads no body for HEAD", () => {
    const { answers, error, interim } = read(
      "HTTP/1.1 100 Continue\r\n\r\n" +
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi" +
        "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n" +
        "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nX-T: 1\r\n\r\n" +
        "HTTP/1.0 200 OK\r\n\r\nuntil the close",
      ["GET", "HEAD", "GET", "GET"],
      true
    )
    expect(error).toBeUndefined()
    expect(interim).toBe(1)
    expect(answers.map((a) => [a.status, a.body.toString(), a.closes])).toStrictEqual([
      [200, "hi", false],
      [200, "", false],
      [201, "abc", false],
      [200, "until the close", true]
    ])
  })

  it("stops at a body over 16 MiB, by Content-Length or chunked: no answer from it or after it", () => {
    const big = "x".repeat(16 * 1024 * 1024 + 1)
    const next = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    for (
      const text of [
        `HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n${big}${next}`,
        `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n${next}`
      ]
    ) {
      const { answers, error } = read(text)
      expect(error).toBe("a body over 16 MiB")
      expect(answers).toStrictEqual([])
    }
  })

  it("refuses what is not HTTP/1.1: a bad status line, obs-fold, a bad length or chunk, and a close in the middle of an answer", () => {
    for (
      const text of [
        "HTTP/1.1 200\r\n\r\n",
        "HTTP/2 200 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX: a\r\n folded\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\nx",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX",
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
        "HTTP/1.1 200 OK\r\nContent-Le"
      ]
    ) {
      expect(read(text, ["GET"], true).error, text).toBeDefined()
    }
  })
})
