/**
 * Which answers come before authentication, through a raw socket (docs/api.md, "Answers before
 * authentication"). Every answer carries `X-Request-Id`. The asterisk form (`OPTIONS *`, `GET *`)
 * is a request like any other: authenticated, limited, then 404 with the rate-limit headers. A
 * request HTTP itself refuses (no `Host` in HTTP/1.1, an `Expect` other than `100-continue`) is
 * answered before authentication, without the rate-limit headers, and consumes nothing of the
 * key's limits.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { answers, exchange, type RawAnswer } from "./support/RawHttp.js"
import { TestServer } from "./support/TestServer.js"

const RATE_LIMIT_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit", "ratelimit-policy"]

/** The one answer to `head` (a request's lines, without the blank line that ends them). */
const ask = (url: string, head: string) =>
  Effect.map(exchange(url, `${head}\r\nConnection: close\r\n\r\n`), (raw) => {
    const replies = answers(raw)
    expect(replies, raw).toHaveLength(1)
    return replies[0]!
  })

const remaining = (reply: RawAnswer): number => Number(reply.headers["x-ratelimit-remaining"])

layer(TestServer.layer({ quiet: true }), { excludeTestServices: true })("answers at the protocol level, over a raw socket", (it) => {
  it.effect("the asterisk form with a valid key: authenticated and limited, then 404 not_found with the rate-limit headers and X-Request-Id", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const account = yield* server.admin.createAccount("free")
      let before: number | undefined
      for (const method of ["OPTIONS", "GET", "DELETE", "PATCH"]) {
        const reply = yield* ask(server.url, `${method} * HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.key}\r\nX-Request-Id: star-${method}`)
        expect(reply.status).toBe(404)
        expect(reply.body).toMatchObject({ code: "not_found", status: 404 })
        expect(reply.headers["x-request-id"]).toBe(`star-${method}`)
        for (const name of RATE_LIMIT_HEADERS) expect(reply.headers[name], `${method} *: ${name}`).toBeDefined()
        // Each one is counted against the key, like any request.
        if (before !== undefined) expect(remaining(reply)).toBe(before - 1)
        before = remaining(reply)
      }
      // So is a target that is neither a path nor a URL node takes (an absolute URL it cannot parse).
      const odd = yield* ask(server.url, `GET http://[bad/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.key}`)
      expect(odd.status).toBe(404)
      expect(remaining(odd)).toBe(before! - 1)
      expect(odd.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/)
    }))

  it.effect("the asterisk form without a key, or with a wrong one: 401 with X-Request-Id", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      for (const auth of ["", "\r\nAuthorization: Bearer sk_test_not_a_key"]) {
        const reply = yield* ask(server.url, `OPTIONS * HTTP/1.1\r\nHost: x${auth}`)
        expect(reply.status).toBe(401)
        expect(reply.body).toMatchObject({ status: 401 })
        expect(reply.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/)
      }
    }))

  it.effect("a refused Expect and a missing Host are answered before authentication: X-Request-Id, no rate-limit headers, nothing of the key's limits consumed", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const account = yield* server.admin.createAccount("free")
      const auth = `Authorization: Bearer ${account.key}`
      const first = yield* ask(server.url, `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${auth}`)
      expect(first.status).toBe(200)
      const refused = [
        [417, "expectation_failed", `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${auth}\r\nExpect: the-unexpected\r\nX-Request-Id: refused-1`],
        [400, "invalid_request", `GET /v1/pets HTTP/1.1\r\n${auth}\r\nX-Request-Id: refused-2`]
      ] as const
      for (const [status, code, head] of refused) {
        const reply = yield* ask(server.url, head)
        expect(reply.status).toBe(status)
        expect(reply.body).toMatchObject({ code, status })
        expect(reply.headers["x-request-id"]).toBe(`refused-${status === 417 ? 1 : 2}`)
        for (const name of RATE_LIMIT_HEADERS) expect(reply.headers[name], `${status}: ${name}`).toBeUndefined()
      }
      // The refusals consumed nothing: the next request is counted right after the first.
      const next = yield* ask(server.url, `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${auth}`)
      expect(remaining(next)).toBe(remaining(first) - 1)
    }))
})
