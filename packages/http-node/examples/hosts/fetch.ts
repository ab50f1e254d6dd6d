import { WebHandler } from "@petstore/http-node"
import { serve, type Server } from "srvx"
import type { PetstoreRuntime } from "./petstore.js"

export const start = async (runtime: PetstoreRuntime, port = 0): Promise<Server> => {
  const petstore = await runtime.runPromise(WebHandler.make)
  const mounted = await runtime.runPromise(WebHandler.makeWith({ basePath: "/petstore" }))

  const server = serve({
    port,
    hostname: "127.0.0.1",
    silent: true,
    fetch: (request) => {
      const { pathname } = new URL(request.url)
      if (pathname.startsWith("/v1/") || pathname === "/docs") return petstore(request, { remoteAddress: request.ip })
      if (pathname.startsWith("/petstore/")) return mounted(request, { remoteAddress: request.ip })
      return new Response(null, { status: 404 }) // ... the host's own routes
    }
  })
  return server.ready()
}
