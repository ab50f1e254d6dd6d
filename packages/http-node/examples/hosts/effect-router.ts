import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { EffectHttp } from "@petstore/http-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"

export const HttpLive = (port = 0) =>
  Layer.unwrap(Effect.gen(function*() {
    const petstore = yield* EffectHttp.httpApp()
    const mounted = yield* EffectHttp.httpApp({ basePath: "/petstore" })
    const router = HttpRouter.empty.pipe(
      // the host's own routes
      HttpRouter.post("/echo", Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => request.json).pipe(
        Effect.flatMap((body) => HttpServerResponse.json(body))
      )),
      HttpRouter.all("/v1/*", petstore), // the pet store's paths
      HttpRouter.get("/docs", petstore),
      HttpRouter.mountApp("/petstore", mounted) // the same under /petstore
    )
    return HttpServer.serve(router)
  })).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })))
