/**
 * The last stage of a request, `write`: each stage's headers are merged once, in a fixed order
 * (the admission's, the operation's, the answer's own, then `Content-Type`), into a new record per
 * response, labelled with the route and the account for logs and metrics.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import type { AppRequest } from "../../src/AppRequest.js"
import * as ErrorResponse from "../../src/ErrorResponse.js"
import { answer, refusal } from "../../src/internal/stages/answer.js"
import * as Exchange from "../../src/internal/stages/exchange.js"
import { write } from "../../src/internal/stages/write.js"

const REQUEST = { method: "GET", url: "/v1/pets/1", header: () => undefined } as unknown as AppRequest

const headerRecord = fc.dictionary(fc.constantFrom("A", "B", "Link", "Content-Type", "Retry-After"), fc.string(), { maxKeys: 4 })

describe("stage write", () => {
  it("merges admission, operation and answer headers in that order, Content-Type last", () => {
    fc.assert(fc.property(headerRecord, headerRecord, headerRecord, fc.option(fc.string(), { nil: undefined }), (admission, operation, own, body) => {
      const exchange = Exchange.make(REQUEST)
      exchange.admission = { ...admission }
      exchange.route = { template: "GET /v1/pets/{petId}", headers: operation }
      exchange.accountId = "acc_1"
      const response = write(exchange, answer(200, body, own))
      const expected: Record<string, string> = { ...admission, ...operation, ...own }
      if (body !== undefined) expected["Content-Type"] = "application/json"
      expect(response.headers).toEqual(expected)
      expect(response.status).toBe(200)
      expect(response.body).toBe(body)
      expect(response.route).toBe("GET /v1/pets/{petId}")
      expect(response.accountId).toBe("acc_1")
      // The operation's headers are copied, never shared with a response a later stage may change.
      expect(response.headers).not.toBe(operation)
      expect(response.headers).not.toBe(own)
    }))
  })

  it("writes an Error answer with its status and body, and a new header record each time", () => {
    const notFound = refusal(ErrorResponse.STATIC.routeNotFound)
    const first = write(Exchange.make(REQUEST), notFound)
    const second = write(Exchange.make(REQUEST), notFound)
    expect(first.status).toBe(404)
    expect(JSON.parse(first.body!)).toEqual({ code: "not_found", message: "No such route.", status: 404 })
    expect(first.headers).toEqual({ "Content-Type": "application/json" })
    expect(first.headers).not.toBe(second.headers)
    expect(first.route).toBeUndefined()
  })

  it("a body that is not JSON carries its own media type", () => {
    const response = write(Exchange.make(REQUEST), { status: 200, body: "# metrics", headers: undefined, contentType: "text/plain" })
    expect(response.headers).toEqual({ "Content-Type": "text/plain" })
  })
})
