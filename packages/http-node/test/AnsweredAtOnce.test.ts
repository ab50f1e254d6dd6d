/**
 * Over stores that answer at once (in memory), `App.handle` is answered at once too: `Sync.run`, as
 * the node:http server runs it, needs no fiber. That holds for a write and for a page read from the
 * store as well. `App.handle` is lazy: nothing happens before its effect runs.
 * The same application answers the same way when a step must wait (HttpWaitingStores.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Accounts, MessageProcessor, Petstore, Sync } from "@petstore/core"
import { Effect, Exit, Layer, Option, Redacted } from "effect"
import { App } from "../src/App.js"
import type { AppRequest } from "../src/AppRequest.js"
import type { AppResponse } from "../src/AppResponse.js"

const request = (method: string, url: string, key: string, body?: unknown): AppRequest => {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, "content-type": "application/json" }
  const bytes = new TextEncoder().encode(body === undefined ? "" : JSON.stringify(body))
  return {
    method,
    url,
    header: (name) => headers[name],
    remoteAddress: "127.0.0.1",
    readBody: () => Exit.succeed({ _tag: "Body", bytes })
  }
}

const Live = App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [] }).pipe(
  Layer.provideMerge(Petstore.layerMemory()),
  Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
)

/** The response of `result` run as the server runs it; the test fails if that needed a fiber. */
const answered = (result: Effect.Effect<AppResponse>): AppResponse => {
  let response: AppResponse | undefined
  Sync.run(result, () => expect.fail("a fiber was forked"), (exit) => {
    if (Exit.isFailure(exit)) throw new Error("the request failed")
    response = exit.value
  })
  return response!
}

describe("answered at once over in-memory stores", () => {
  it.effect("POST /v1/pets (201, stored), then GET /v1/pets: each an Exit", () =>
    Effect.gen(function*() {
      const app = yield* App
      const issued = yield* (yield* Accounts.Accounts).create({ plan: "pro" })
      const key = Redacted.value(issued.key.key)
      const created = answered(app.handle(request("POST", "/v1/pets", key, { name: "Rex", categoryId: 1 })))
      expect(created.status).toBe(201)
      const pet = JSON.parse(created.body!)
      expect(pet).toMatchObject({ name: "Rex", categoryId: 1, status: "available" })
      expect(created.headers["Location"]).toBe(`/v1/pets/${pet.id}`)
      const page = answered(app.handle(request("GET", "/v1/pets", key)))
      expect(JSON.parse(page.body!)).toStrictEqual([pet])
      // (GET /v1/pets/{id} reads the Clock for its sunset, so it runs as an effect.)
      expect((yield* app.handle(request("GET", `/v1/pets/${pet.id}`, key))).status).toBe(200)
      // Lazy: a request's effect that is never run creates nothing.
      app.handle(request("POST", "/v1/pets", key, { name: "Nobody", categoryId: 3 }))
      // A second POST is a second pet: the work is done once per request, when it is answered.
      const second = JSON.parse(answered(app.handle(request("POST", "/v1/pets", key, { name: "Tom", categoryId: 2 }))).body!)
      expect(second.id).toBeGreaterThan(pet.id)
      expect(JSON.parse(answered(app.handle(request("GET", "/v1/pets", key))).body!)).toStrictEqual([pet, second])
    }).pipe(Effect.provide(Live)))
})
