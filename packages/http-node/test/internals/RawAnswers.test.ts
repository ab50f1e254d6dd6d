/** Answers written to a bare socket (src/internal/hosts/connections/rawAnswers.ts), byte for byte. */
import { describe, expect, it } from "vitest"
import type * as Http from "node:http"
import * as ErrorResponse from "../../src/ErrorResponse.js"
import * as RawAnswers from "../../src/internal/hosts/connections/rawAnswers.js"

const ID = /^[0-9a-f-]{36}$/

/** The answer's head lines and its body. */
const split = (answer: string) => {
  const at = answer.indexOf("\r\n\r\n")
  return { head: answer.slice(0, at).split("\r\n"), body: answer.slice(at + 4) }
}

describe("raw answers", () => {
  it("an Error body as a whole HTTP/1.1 answer that closes the connection, extra headers before the length", () => {
    const error = ErrorResponse.make("unavailable", "é")
    expect(RawAnswers.rawAnswer(error, "Retry-After: 1\r\n")).toBe(
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n" +
        `Content-Length: ${Buffer.byteLength(error.body)}\r\nConnection: close\r\n\r\n${error.body}`
    )
  })

  it("CONNECT: 405 with the given methods in Allow and in the message, and the request's id", () => {
    const answer = RawAnswers.connectNotAllowed(["GET", "HEAD", "PUT"])("tunnel-7")
    const { body, head } = split(answer)
    expect(head[0]).toBe("HTTP/1.1 405 Method Not Allowed")
    expect(head).toContain("Allow: GET, HEAD, PUT")
    expect(head).toContain("X-Request-Id: tunnel-7")
    expect(JSON.parse(body)).toEqual({ code: "method_not_allowed", message: "CONNECT is not allowed here; allowed: GET, HEAD, PUT.", status: 405 })
  })

  it("past the cap: 503 with Retry-After and a new id each time", () => {
    const [one, two] = [RawAnswers.tooManyConnections(), RawAnswers.tooManyConnections()].map(split)
    expect(one!.head[0]).toBe("HTTP/1.1 503 Service Unavailable")
    expect(one!.head).toContain("Retry-After: 1")
    const ids = [one!, two!].map(({ head }) => head.find((h) => h.startsWith("X-Request-Id: "))!.slice(14))
    expect(ids[0]).toMatch(ID)
    expect(ids[1]).not.toBe(ids[0])
    expect(JSON.parse(one!.body)).toMatchObject({ code: "unavailable", status: 503 })
  })

  it("client errors: by the parser's code, with the request's own id when its headers were read", () => {
    const timedOut = split(RawAnswers.clientError("ERR_HTTP_REQUEST_TIMEOUT", { headers: { "x-request-id": "slow-1" } } as unknown as Http.IncomingMessage))
    expect(timedOut.head[0]).toBe("HTTP/1.1 408 Request Timeout")
    expect(timedOut.head).toContain("X-Request-Id: slow-1")
    const malformed = split(RawAnswers.clientError("HPE_INVALID_METHOD", undefined))
    expect(malformed.head[0]).toBe("HTTP/1.1 400 Bad Request")
    expect(malformed.head.find((h) => h.startsWith("X-Request-Id: "))!.slice(14)).toMatch(ID)
    expect(split(RawAnswers.clientError("HPE_HEADER_OVERFLOW", undefined)).head[0]).toBe("HTTP/1.1 431 Request Header Fields Too Large")
  })
})
