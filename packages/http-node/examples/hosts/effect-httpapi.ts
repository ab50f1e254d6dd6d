import { NodeHttpServer } from "@effect/platform-node"
import { Api, EffectHttp } from "@petstore/http-node"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { createServer } from "node:http"

// The host's own API, with the pet store's operations added to it (and so to its OpenAPI document).
class Notes extends HttpApiGroup.make("notes").add(
  HttpApiEndpoint.post("addNote", "/notes", {
    payload: Schema.Struct({ text: Schema.String }),
    success: Schema.Struct({ text: Schema.String })
  })
) {}
export const HostApi = HttpApi.make("host").add(Notes).addHttpApi(Api.Api)

const NotesLive = HttpApiBuilder.group(HostApi, "notes", (handlers) => handlers.handle("addNote", ({ payload }) => Effect.succeed(payload)))

export const HttpLive = (port = 0) =>
  HttpRouter.serve(
    HttpApiBuilder.layer(HostApi, { openapiPath: "/openapi.json" }) // the host's document, at /openapi.json
      .pipe(Layer.provide([NotesLive, EffectHttp.layerHttpApi(HostApi)])),
    { disableListenLog: true }
  ).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })))
