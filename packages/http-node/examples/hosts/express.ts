import * as PetstoreExpress from "@petstore/http-node/express"
import express from "express"
import type { Server } from "node:http"
import type { PetstoreRuntime } from "./petstore.js"

export const start = async (runtime: PetstoreRuntime, port = 0): Promise<Server> => {
  const app = express()
  app.use(express.json())
  app.post("/echo", (req, res) => { res.json(req.body) }) // the host's own routes

  // The pet store's paths (/v1/…, /docs); every other request goes on to the host's routes.
  app.use(await runtime.runPromise(PetstoreExpress.make()))
  // The same under /petstore (/petstore/v1/pets …).
  app.use("/petstore", await runtime.runPromise(PetstoreExpress.make({ basePath: "/petstore" })))

  return new Promise((resolve) => { const server = app.listen(port, "127.0.0.1", () => resolve(server)) })
}
