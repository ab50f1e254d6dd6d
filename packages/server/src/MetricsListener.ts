/**
 * The metrics on an address of their own (`PETSTORE_METRICS_ADDRESS`), without a token: for a
 * scraper on a private network or a sidecar, the address kept off the public one.
 */
import * as ErrorResponse from "@petstore/http-node/ErrorResponse"
import * as Server from "@petstore/http-node/Server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Http from "node:http"

/** Serves `GET /metrics` with `scrape`'s text on `host:port` for the life of the layer. */
export const layer = (
  address: { readonly host: string; readonly port: number },
  scrape: Effect.Effect<string>,
  contentType: string
): Layer.Layer<never, Server.ListenError> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const runPromise = Effect.runPromiseWith(yield* Effect.context<never>())
    const server = Http.createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0]
      if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
        const { body, status } = ErrorResponse.STATIC.routeNotFound
        response.writeHead(status, { "Content-Type": "application/json" }).end(body)
        return
      }
      runPromise(scrape).then(
        (text) => response.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-store" }).end(text),
        () => {
          const { body, status } = ErrorResponse.STATIC.internal
          response.writeHead(status, { "Content-Type": "application/json" }).end(body)
        }
      )
    })
    yield* Effect.acquireRelease(
      Effect.callback<void, Server.ListenError>((resume) => {
        server.once("error", (error) =>
          resume(Effect.fail(new Server.ListenError({ message: `cannot serve metrics on ${address.host}:${address.port}: ${error.message}` }))))
        server.listen(address.port, address.host, () => resume(Effect.void))
      }),
      () => Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
    )
  }))
