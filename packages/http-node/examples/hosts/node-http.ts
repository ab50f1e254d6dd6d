import { NodeHandler } from "@petstore/http-node"
import * as Http from "node:http"
import type { PetstoreRuntime } from "./petstore.js"

export const start = async (runtime: PetstoreRuntime, port = 0): Promise<Http.Server> => {
  const petstore = await runtime.runPromise(NodeHandler.make)
  const mounted = await runtime.runPromise(NodeHandler.makeWith({ basePath: "/petstore" }))

  const server = Http.createServer((req, res) => {
    if (req.url?.startsWith("/v1/") || req.url === "/docs" || req.url?.startsWith("/docs?")) return petstore(req, res)
    if (req.url?.startsWith("/petstore/")) return mounted(req, res)
    res.writeHead(404).end() // ... the host's own routes
  })
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)))
}
