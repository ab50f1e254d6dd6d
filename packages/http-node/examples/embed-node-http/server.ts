/**
 * Embedding the pet store in a plain node:http server. The host owns the server and its own
 * routes (`/health` here) and hands the pet store's routes (`/v1/...`, `/admin/...`, `/docs`) to
 * the pet store's request listener. The pet store runs in a `ManagedRuntime`, which is disposed on
 * shutdown: after the server has stopped accepting and let in-flight requests finish, the runtime
 * closes the services (the message queue drains what is due).
 *
 * Run it (after `pnpm build`): `pnpm --filter @petstore/http-node example:embed`
 */
import { Accounts, MessageProcessor, Petstore } from "@petstore/core"
import { App, NodeHandler } from "@petstore/http-node"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { pathToFileURL } from "node:url"

export interface EmbeddingOptions {
  readonly port?: number
  readonly host?: string
  /** Enables the pet store's admin API (`/admin/v1`) with this token (at least 16 characters). */
  readonly adminToken?: string
}

export interface EmbeddedServer {
  readonly url: string
  /** The pet store's runtime: its services, and the source of any other handler (`WebHandler.make`). */
  readonly runtime: ManagedRuntime.ManagedRuntime<App.App | Petstore.Services, never>
  /** Stops accepting, lets in-flight requests finish, then disposes the pet store. */
  readonly close: () => Promise<void>
}

/** The paths the pet store answers; everything else is the host's. */
const isPetstorePath = (path: string): boolean =>
  path.startsWith("/v1/") || path.startsWith("/admin/") || path === "/docs"

export const start = async (options: EmbeddingOptions = {}): Promise<EmbeddedServer> => {
  const host = options.host ?? "127.0.0.1"
  const runtime = ManagedRuntime.make(
    App.App.layer({
      quickstartBasePath: "/v1",
      adminToken: Option.map(Option.fromNullishOr(options.adminToken), Redacted.make),
      trustProxy: 0,
      servers: []
    }).pipe(
      Layer.provideMerge(Petstore.layerMemory()),
      Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
    )
  )
  const petstore = await runtime.runPromise(NodeHandler.make)

  const server = Http.createServer((request, response) => {
    const path = (request.url ?? "/").split("?", 1)[0]!
    if (isPetstorePath(path)) return petstore(request, response)
    if (path === "/health") {
      response.writeHead(200, { "Content-Type": "application/json" })
      return response.end(JSON.stringify({ status: "ok" }))
    }
    response.writeHead(404, { "Content-Type": "text/plain" })
    response.end("Not served by this host.\n")
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, host, () => resolve())
  })
  const { port } = server.address() as AddressInfo

  const close = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeIdleConnections()
    })
    await runtime.dispose()
  }
  return { url: `http://${host}:${port}`, runtime, close }
}

/** Run directly: listen on PORT (default 3000), print a demo key, dispose on SIGINT/SIGTERM. */
const main = async () => {
  const embedded = await start({ port: Number(process.env.PORT ?? 3000) })
  const { key } = await embedded.runtime.runPromise(
    Effect.flatMap(Accounts.Accounts, (accounts) => accounts.create({ plan: "free" }))
  )
  console.log(`Listening on ${embedded.url} (/health, /v1/pets, /docs). Demo key: ${Redacted.value(key.key)}`)
  const shutdown = () => {
    embedded.close().then(() => process.exit(0), (error) => {
      console.error(error)
      process.exit(1)
    })
  }
  process.once("SIGINT", shutdown)
  process.once("SIGTERM", shutdown)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main()
