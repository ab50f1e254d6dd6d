/**
 * Effect hosts: an `HttpRouter` app (`examples/hosts/effect-router.ts`) mounting the pet store's
 * HTTP effect at the root and under `/petstore`, and an `HttpApi` app
 * (`examples/hosts/effect-httpapi.ts`) whose own API includes the pet store's groups; both served
 * by `@effect/platform-node`'s `NodeHttpServer` over real HTTP.
 */
import { HttpRouter, HttpServer, HttpServerRequest } from "effect/http"
import { HttpApi, HttpApiBuilder, OpenApi } from "effect/http-api"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Exit, Fiber, Layer, Logger, Scope, References } from "effect"
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HostApi, HttpLive as HttpApiLive } from "../examples/hosts/effect-httpapi.js"
import { HttpLive as RouterLive } from "../examples/hosts/effect-router.js"
import { PetstoreLive } from "../examples/hosts/petstore.js"
import { Api } from "../src/Api.js"
import { App } from "../src/App.js"
import type { AppRequest } from "../src/AppRequest.js"
import * as EffectHttp from "../src/EffectHttp.js"
import * as RequestObserver from "../src/RequestObserver.js"
import { checkHost, createKey, send } from "./support/Hosts.js"

type Served = { readonly url: string; readonly context: Context.Context<any>; readonly scope: Scope.Closeable }

const serve = async (http: Layer.Layer<HttpServer.HttpServer, unknown, any>): Promise<Served> => {
  const scope = Effect.runSync(Scope.make())
  const built = Layer.buildWithScope(http.pipe(Layer.provideMerge(PetstoreLive)), scope)
  const context = await Effect.runPromise(built as Effect.Effect<Context.Context<any>, unknown>)
  const address = Context.get(context, HttpServer.HttpServer).address as { readonly port: number }
  return { url: `http://127.0.0.1:${address.port}`, context, scope }
}

const runIn = (served: Served) => <A, E>(effect: Effect.Effect<A, E, any>) =>
  Effect.runPromise(Effect.provide(effect, served.context) as Effect.Effect<A, E>)

describe("Effect HttpRouter host (examples/hosts/effect-router.ts)", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve(RouterLive())
  })
  afterAll(() => Effect.runPromise(Scope.close(served.scope, Exit.void)))

  it("serves the list, POSTs, a mount under /petstore, and each client's address (the platform request's remoteAddress)", () =>
    checkHost(served.url, runIn(served)))

  it("leaves the host's own routes alone", async () => {
    const echo = await send(`${served.url}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: "{\"a\":1}" })
    expect(echo.body).toEqual({ a: 1 })
  })
})

describe("Effect HttpApi host (examples/hosts/effect-httpapi.ts)", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve(HttpApiLive())
  })
  afterAll(() => Effect.runPromise(Scope.close(served.scope, Exit.void)))

  it("lists the pet store's operations in the host's own OpenAPI document", async () => {
    const document = (await send(`${served.url}/openapi.json`)).body
    expect(document).toEqual(OpenApi.fromApi(HostApi))
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/notes", "/v1/pets", "/v1/pets/{petId}", "/v1/messages"]))
    expect(document.paths["/v1/pets"].post.operationId).toBe("createPet")
  })

  it("answers the pet store's paths as the pet store does, before the host's router decodes anything", async () => {
    const key = await runIn(served)(createKey())
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" }
    const created = await send(`${served.url}/v1/pets`, { method: "POST", headers: auth, body: JSON.stringify({ name: "Rex", categoryId: 1 }) })
    expect(created.status).toBe(201)
    expect(created.headers.location).toBe(`/v1/pets/${created.body.id}`)
    expect((await send(`${served.url}/v1/pets`, { headers: auth })).body).toEqual([created.body])
    // The interface's order and Error bodies: no key is 401 whatever the query; a bad query is the pet store's 400.
    expect((await send(`${served.url}/v1/pets?limit=abc`)).body).toMatchObject({ code: "unauthorized", status: 401 })
    expect((await send(`${served.url}/v1/pets?limit=abc`, { headers: auth })).body).toMatchObject({ code: "invalid_request", status: 400 })
    expect((await send(`${served.url}/v1/pets`, { method: "POST", headers: auth, body: "{" })).body).toMatchObject({ code: "invalid_json" })
    // Each client's address has its own failed-authentication bucket.
    const remaining = async (from: string) => (await send(`${served.url}/v1/pets`, { from })).headers["x-ratelimit-remaining"]
    const first = Number(await remaining("127.0.0.2"))
    expect(await remaining("127.0.0.2")).toBe(String(first - 1))
    expect(await remaining("127.0.0.3")).toBe(String(first))
    // The host's own endpoint decodes its own payload.
    const note = await send(`${served.url}/notes`, { method: "POST", headers: { "content-type": "application/json" }, body: "{\"text\":\"hi\"}" })
    expect(note.body).toEqual({ text: "hi" })
  })
})

describe("Effect HttpApi host with the pet store's API under a prefix", () => {
  const PrefixedApi = HttpApi.make("prefixed").addHttpApi(Api.prefix("/petstore"))
  let served: Served
  beforeAll(async () => {
    served = await serve(HttpRouter.serve(
      HttpApiBuilder.layer(PrefixedApi).pipe(Layer.provide(EffectHttp.layerHttpApi(PrefixedApi, { basePath: "/petstore" }))),
      { disableListenLog: true }
    ).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))))
  })
  afterAll(() => Effect.runPromise(Scope.close(served.scope, Exit.void)))

  it("documents and serves the operations under the prefix, with links under it", async () => {
    expect(Object.keys(OpenApi.fromApi(PrefixedApi).paths)).toContain("/petstore/v1/pets")
    const key = await runIn(served)(createKey())
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" }
    const created = await send(`${served.url}/petstore/v1/pets`, { method: "POST", headers: auth, body: JSON.stringify({ name: "Rex", categoryId: 1 }) })
    expect(created.status).toBe(201)
    expect(created.headers.location).toBe(`/petstore/v1/pets/${created.body.id}`)
    expect((await send(`${served.url}/petstore/v1/pets?limit=abc`)).body).toMatchObject({ code: "unauthorized" })
    expect((await send(`${served.url}/v1/pets`)).status).toBe(404)
  })
})

describe("the request id on log lines, under an Effect host", () => {
  it("a request interrupted in the host's fiber leaves the host's log annotations as they were", async () => {
    const lines: Array<{ readonly message: unknown; readonly annotations: Record<string, unknown> }> = []
    const logger = Logger.make(({ fiber, message }) => {
      lines.push({
        message,
        annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
      })
    })
    const observe = await Effect.runPromise(RequestObserver.make({}))
    // A request that waits, and waits for ever once it has logged.
    const handle = (request: AppRequest) => observe(request, () => Effect.andThen(Effect.logInfo("inside"), Effect.never))
    const app = await Effect.runPromise(EffectHttp.httpApp().pipe(Effect.provideService(App, { handle })))
    const request = HttpServerRequest.HttpServerRequest.of(
      HttpServerRequest.fromWeb(new Request("http://host/v1/pets", { headers: { "x-request-id": "r-1" } }))
    )
    const host = app.pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, request),
      Effect.onInterrupt(() => Effect.logInfo("host finalizer")),
      Effect.annotateLogs("host", "h"),
      Effect.provide(Logger.layer([logger]))
    )
    await Effect.runPromise(Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(host)
      while (lines.length === 0) yield* Effect.sleep("1 millis")
      yield* Fiber.interrupt(fiber)
    }))
    expect(lines).toEqual([
      { message: ["inside"], annotations: { host: "h", requestId: "r-1" } },
      { message: ["host finalizer"], annotations: { host: "h" } }
    ])
  })
})
