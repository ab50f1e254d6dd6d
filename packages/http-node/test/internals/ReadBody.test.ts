/** Stage read body: the JSON payload of a route that takes one; 413, 400 for a body not JSON or not declared as JSON. */
import { describe, expect, it } from "vitest"
import type { Exchange } from "../../src/internal/stages/exchange.js"
import * as ReadBody from "../../src/internal/stages/readBody.js"
import { exchange, outcome, outcomeAtOnce } from "./support/Stages.js"

const withRoute = (e: Exchange, hasPayload: boolean) => {
  e.found = { handler: { hasPayload } } as never
  return e
}
const bytes = (text: string) => ({ _tag: "Body" as const, bytes: new TextEncoder().encode(text) })
const json = { "content-type": "application/json; charset=utf-8" }

describe("stage read body", () => {
  const stage = ReadBody.make({ bodyLimit: 16, emptyBodyIsObject: false })

  it("a JSON body goes on the exchange; a route without a payload goes on at once", () => {
    const e = withRoute(exchange({ headers: json, body: bytes("{\"a\":1}") }), true)
    expect(outcomeAtOnce(stage, e)).toBeUndefined()
    expect(e.payload).toStrictEqual({ a: 1 })
    expect(outcomeAtOnce(stage, withRoute(exchange({ body: { _tag: "TooLarge" } }), false))).toBeUndefined()
  })

  it("413 (closing the connection) past the limit, 400 for a body not declared JSON or not JSON", () => {
    expect(outcomeAtOnce(stage, withRoute(exchange({ body: { _tag: "TooLarge" } }), true))).toMatchObject({ status: 413, headers: { Connection: "close" } })
    expect(JSON.parse(outcomeAtOnce(stage, withRoute(exchange({ body: bytes("{}") }), true))!.body!).code).toBe("unsupported_media_type")
    expect(JSON.parse(outcomeAtOnce(stage, withRoute(exchange({ headers: json, body: bytes("{") }), true))!.body!).code).toBe("invalid_json")
  })

  it("an empty body is {} where the routes say so (the admin API); a body a host consumed is the server's fault (500), logged", async () => {
    const e = withRoute(exchange({ body: bytes("") }), true)
    expect(outcomeAtOnce(ReadBody.make({ bodyLimit: 16, emptyBodyIsObject: true }), e)).toBeUndefined()
    expect(e.payload).toStrictEqual({})
    expect((await outcome(stage, withRoute(exchange({ body: { _tag: "Consumed" } }), true)))?.status).toBe(500)
  })
})
