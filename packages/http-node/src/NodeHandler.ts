/**
 * The application as a node:http request listener, for `http.createServer` or mounting inside
 * another node server (Express, Fastify's raw request ...).
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { App } from "./App.js"
import * as Mount from "./internal/hosts/mount.js"
import * as NodeHost from "./internal/hosts/nodeHost.js"

/** A node:http request listener. */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void

/** Where the host mounted the handler. */
export interface NodeHandlerOptions {
  /**
   * Where the host mounted the handler, when that is not the root: `"/petstore"` serves
   * `/petstore/v1/pets`. It is removed from each request's path (Express's `req.originalUrl`
   * when set, otherwise `req.url`) before routing, and put before the paths answers link to
   * (`Location`, `Link`).
   */
  readonly basePath?: `/${string}` | undefined
}

/** Builds the listener on the current runtime, with the handler mounted under `options.basePath`. */
export const makeWith = (options: NodeHandlerOptions): Effect.Effect<NodeHandler, never, App> => {
  const basePath = Mount.normalizeBasePath(options.basePath)
  return Effect.map(NodeHost.make, (host): NodeHandler => (request: NodeHost.HostedRequest, response) => {
    const url = Mount.routedUrl(request.originalUrl ?? request.url ?? "/", basePath)
    if (url === undefined) return NodeHost.notMounted(request, response)
    NodeHost.serve(host, request, url, basePath, response, host.write)
  })
}

/**
 * Builds the listener on the current runtime (its services, clock and logger serve every request).
 *
 * @example
 * ```ts
 * import { MessageProcessor, Petstore } from "@petstore/core"
 * import { App, NodeHandler } from "@petstore/http-node"
 * import { Layer, ManagedRuntime, Option } from "effect"
 * import * as Http from "node:http"
 *
 * const runtime = ManagedRuntime.make(
 *   App.App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [] }).pipe(
 *     Layer.provideMerge(Petstore.layerMemory()),
 *     Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
 *   )
 * )
 * Http.createServer(await runtime.runPromise(NodeHandler.make)).listen(3000)
 * ```
 */
export const make: Effect.Effect<NodeHandler, never, App> = makeWith({})
