/** Stage operate: the handler's reply encoded by the endpoint's schema with the success status, or its failure as an Error answer. */
import { Errors } from "@petstore/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Api, OPERATIONS } from "../../src/Api.js"
import * as Operate from "../../src/internal/stages/operate.js"
import * as Routes from "../../src/internal/routes.js"
import { exchange, outcome, outcomeAtOnce } from "./support/Stages.js"

const PET = { id: 3, name: "Rex", categoryId: 1, status: "available", secret: "never written" }
const handlers: Record<string, (input: any, context: any) => Effect.Effect<Routes.Reply<unknown>, any>> = {
  // Any operation the API lists, the ones below aside.
  ...Object.fromEntries(OPERATIONS.map((o) => [o.endpoint.identifier, () => Effect.die("unused")])),
  listPets: () => Effect.succeed({ value: [PET] }),
  createPet: (_, { path }) => Effect.succeed({ value: PET, headers: { Location: `${path}/3` } }),
  getPet: () => Effect.fail(new Errors.PetNotFound({ id: 9 as never })),
  createMessage: () => Effect.fail(new Errors.StoreUnavailable({ cause: "down" })),
  getMessage: () => Effect.die("unused")
}
const table = Routes.table(Routes.compile(Api, handlers))
const stage = Operate.make((_, path) => ({ path }))

const routed = (method: string, url: string) => {
  const e = exchange({ method, url })
  e.found = table.find(method, url)
  e.input = {}
  return e
}

describe("stage operate", () => {
  it("the reply encoded by the endpoint's success schema (undeclared fields left out), its status and headers", () => {
    const created = outcomeAtOnce(stage, routed("POST", "/v1/pets"))
    expect(created).toMatchObject({ status: 201, headers: { Location: "/v1/pets/3" } })
    expect(JSON.parse(created!.body!)).toStrictEqual({ id: 3, name: "Rex", categoryId: 1, status: "available" })
    expect(JSON.parse(outcomeAtOnce(stage, routed("GET", "/v1/pets"))!.body!)).toStrictEqual([{ id: 3, name: "Rex", categoryId: 1, status: "available" }])
  })

  it("a failure is its Error answer: 404 for a domain failure, 503 for the store", async () => {
    expect(outcomeAtOnce(stage, routed("GET", "/v1/pets/9"))?.status).toBe(404)
    expect((await outcome(stage, routed("POST", "/v1/messages")))?.status).toBe(503)
  })
})
