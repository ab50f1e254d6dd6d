/**
 * Over stores that answer at once (in memory), `App.handle` is answered at once too: `Sync.run`, as
 * the node:http server runs it, needs no fiber. That holds for a write and for a page read from the
 * store as well. `App.handle` is lazy: nothing happens before its effect runs.
 * The same application answers the same way when a step must wait (HttpWaitingStores.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Accounts, MessageProcessor, Petstore, RateLimiter, Sync } from "@petstore/core"
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

/**
 * A limiter whose every decision comes through a callback on a later turn of the event loop, as the
 * Redis limiter's reply does (`Sync.callback`): the in-memory limiter's decision, told later.
 */
const answeredLater = Layer.effect(
  RateLimiter.RateLimiter,
  Effect.map(RateLimiter.RateLimiter, (inner) => {
    const later = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Sync.callback((resume) => {
        const decided = Sync.now(effect) as Exit.Exit<A, E>
        setImmediate(() => resume(decided))
      })
    return RateLimiter.RateLimiter.of({
      ...inner,
      admit: (subject) => later(inner.admit(subject)),
      admitFailedAuth: (address) => later(inner.admitFailedAuth(address))
    })
  })
).pipe(Layer.provide(RateLimiter.RateLimiter.layerMemory()))

const LiveLater = App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [] }).pipe(
  Layer.provideMerge(Petstore.layerMemory({ rateLimiterLayer: answeredLater })),
  Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
)

/** The response of `result` run as the server runs it, after its callbacks; the test fails if that needed a fiber. */
const answeredAfterCallbacks = (result: Effect.Effect<AppResponse>): Promise<AppResponse> =>
  new Promise((resolve, reject) =>
    Sync.run(result, () => expect.fail("a fiber was forked"), (exit) => {
      if (Exit.isFailure(exit)) return reject(new Error("the request failed"))
      resolve(exit.value)
    })
  )

describe("answered without a fiber when the limiter's decision comes through a callback (as Redis's)", () => {
  it.effect("POST /v1/pets, GET /v1/pets, a bad key: each answered after the decision, with its rate-limit headers", () =>
    Effect.gen(function*() {
      const app = yield* App
      const issued = yield* (yield* Accounts.Accounts).create({ plan: "pro" })
      const key = Redacted.value(issued.key.key)
      const created = yield* Effect.promise(() => answeredAfterCallbacks(app.handle(request("POST", "/v1/pets", key, { name: "Rex", categoryId: 1 }))))
      expect(created.status).toBe(201)
      const pet = JSON.parse(created.body!)
      const page = yield* Effect.promise(() => answeredAfterCallbacks(app.handle(request("GET", "/v1/pets", key))))
      expect(page.status).toBe(200)
      expect(JSON.parse(page.body!)).toStrictEqual([pet])
      // Two decisions made: the remaining count went down by one between them.
      const remaining = (r: AppResponse) => Number(r.headers["X-RateLimit-Remaining"])
      expect(remaining(page)).toBe(remaining(created) - 1)
      const refused = yield* Effect.promise(() => answeredAfterCallbacks(app.handle(request("GET", "/v1/pets", "not-a-key"))))
      expect(refused.status).toBe(401)
      expect(refused.headers["X-RateLimit-Limit"]).toBeDefined()
    }).pipe(Effect.provide(LiveLater)))
})
