import * as PetstoreFastify from "@petstore/http-node/fastify"
import Fastify, { type FastifyInstance } from "fastify"
import type { PetstoreRuntime } from "./petstore.js"

export const start = async (runtime: PetstoreRuntime, port = 0): Promise<FastifyInstance> => {
  const app = Fastify()
  app.post("/echo", async (request) => request.body) // the host's own routes, with Fastify's JSON parser

  const petstore = await runtime.runPromise(PetstoreFastify.plugin)
  await app.register(petstore) // the pet store's paths (/v1/…, /docs)
  await app.register(petstore, { prefix: "/petstore" }) // the same under /petstore

  await app.listen({ port, host: "127.0.0.1" })
  return app
}
