import { NodeHttpServer } from "@effect/platform-node"
import { EffectHttp } from "@petstore/http-node"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"

const Routes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const petstore = yield* EffectHttp.httpApp()
    const mounted = yield* EffectHttp.httpApp({ basePath: "/petstore" })
    // the host's own routes
    yield* router.add("POST", "/echo", Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => request.json).pipe(
      Effect.flatMap((body) => HttpServerResponse.json(body)),
      Effect.orDie
    ))
    yield* router.add("*", "/v1/*", petstore) // the pet store's paths
    yield* router.add("GET", "/docs", petstore)
    yield* router.add("*", "/petstore/*", mounted) // the same under /petstore
  }))

export const HttpLive = (port = 0) =>
  HttpRouter.serve(Routes, { disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
  )
