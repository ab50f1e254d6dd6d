/** Stage route: the route of method and path goes on the exchange; 404 for an unknown path, 405 with `Allow` for another method. */
import { describe, expect, it } from "vitest"
import * as Route from "../../src/internal/stages/route.js"
import { apiRoutes, exchange, outcomeAtOnce } from "./support/Stages.js"

const stage = Route.make({
  routes: apiRoutes,
  allowedElsewhere: (url) => (url === "/v1/openapi.json" ? "GET, HEAD" : undefined),
  operationHeaders: { getPet: (basePath) => ({ Sunset: `at ${basePath}` }) }
})

describe("stage route", () => {
  it("a route found: the route and its parameters on the exchange, labelled with its template and the operation's headers", () => {
    const found = exchange({ url: "/v1/pets/7" })
    expect(outcomeAtOnce(stage, found)).toBeUndefined()
    expect(found.found?.handler.name).toBe("getPet")
    expect(found.found?.params).toStrictEqual({ petId: "7" })
    expect(found.route).toStrictEqual({ template: "GET /v1/pets/{petId}", headers: { Sunset: "at " } })
    // At the root, the label is made once and shared.
    const again = exchange({ url: "/v1/pets/8" })
    outcomeAtOnce(stage, again)
    expect(again.route).toBe(found.route)
  })

  it("404 for an unknown path; 405 with Allow for another method, the document's included", () => {
    expect(outcomeAtOnce(stage, exchange({ url: "/v1/nope" }))?.status).toBe(404)
    expect(outcomeAtOnce(stage, exchange({ method: "DELETE", url: "/v1/pets" }))).toMatchObject({ status: 405, headers: { Allow: "GET, HEAD, POST" } })
    expect(outcomeAtOnce(stage, exchange({ method: "POST", url: "/v1/openapi.json" }))).toMatchObject({ status: 405, headers: { Allow: "GET, HEAD" } })
  })
})
