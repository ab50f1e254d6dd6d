/** Stage decode: the operation's input from path, query and payload by the endpoint's schemas; the first failure is 400. */
import { describe, expect, it } from "vitest"
import { decode } from "../../src/internal/stages/decode.js"
import { apiRoutes, exchange, outcomeAtOnce } from "./support/Stages.js"

const table = apiRoutes

const routed = (method: string, url: string, payload?: unknown) => {
  const e = exchange({ method, url })
  e.found = table.find(method, url)
  e.payload = payload
  return e
}

describe("stage decode", () => {
  it("decoded path, query and payload go on the exchange", () => {
    const get = routed("GET", "/v1/pets/12")
    expect(outcomeAtOnce(decode, get)).toBeUndefined()
    expect(get.input).toStrictEqual({ path: { petId: 12 } })
    const list = routed("GET", "/v1/pets?limit=5&status=sold")
    expect(outcomeAtOnce(decode, list)).toBeUndefined()
    expect(list.input).toStrictEqual({ urlParams: { limit: 5, status: "sold" } })
    const create = routed("POST", "/v1/pets", { name: "Rex", categoryId: 1, extra: true })
    expect(outcomeAtOnce(decode, create)).toBeUndefined()
    expect(create.input).toStrictEqual({ payload: { name: "Rex", categoryId: 1 } })
  })

  it("400 invalid_request naming what is wrong", () => {
    for (const [method, url, payload, where] of [
      ["GET", "/v1/pets/abc", undefined, "path parameter"],
      ["GET", "/v1/pets?limit=0", undefined, "query parameter"],
      ["POST", "/v1/pets", { name: "", categoryId: 1 }, "body"]
    ] as const) {
      const answer = outcomeAtOnce(decode, routed(method, url, payload))
      expect(answer?.status).toBe(400)
      expect(JSON.parse(answer!.body!)).toMatchObject({ code: "invalid_request", message: expect.stringContaining(where) })
    }
  })
})
