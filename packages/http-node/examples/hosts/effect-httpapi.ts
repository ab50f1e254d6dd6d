import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Api, EffectHttp } from "@petstore/http-node"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"

// The host's own API, with the pet store's operations added to it (and so to its OpenAPI document).
class Notes extends HttpApiGroup.make("notes").add(
  HttpApiEndpoint.post("addNote", "/notes").setPayload(Schema.Struct({ text: Schema.String })).addSuccess(Schema.Struct({ text: Schema.String }))
) {}
export class HostApi extends HttpApi.make("host").add(Notes).addHttpApi(Api.Api) {}

const NotesLive = HttpApiBuilder.group(HostApi, "notes", (handlers) => handlers.handle("addNote", ({ payload }) => Effect.succeed(payload)))

export const HttpLive = (port = 0) =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.middlewareOpenApi()), // the host's document, at /openapi.json
    Layer.provide(HttpApiBuilder.api(HostApi).pipe(Layer.provide([NotesLive, EffectHttp.layerHttpApi(HostApi)]))),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
  )
