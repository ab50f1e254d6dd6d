/**
 * Under a host that names its requests (Fastify's `request.id`, Express's `req.id` as pino-http
 * sets it), the pet store's log lines of a request carry the host's id as `reqId`, the name the
 * host's own lines use: through real HTTP, with the access log on.
 */
import { MessageProcessor, Petstore } from "@petstore/core"
import * as PetstoreExpress from "@petstore/http-node/express"
import * as PetstoreFastify from "@petstore/http-node/fastify"
import { Layer, Logger, ManagedRuntime, Option, References } from "effect"
import express from "express"
import Fastify from "fastify"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import * as App from "../src/App.js"
import { send } from "./support/Hosts.js"

/** The pet store with its access log on, its lines kept (message and annotations). */
const capturing = () => {
  const lines: Array<{ readonly message: unknown; readonly annotations: Record<string, unknown> }> = []
  const logger = Logger.make(({ fiber, message }) =>
    void lines.push({
      message: Array.isArray(message) && message.length === 1 ? message[0] : message,
      annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
    }))
  const runtime = ManagedRuntime.make(
    App.App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [], observe: { accessLog: true } }).pipe(
      Layer.provideMerge(Petstore.layerMemory()),
      Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly),
      Layer.provide(Logger.layer([logger]))
    )
  )
  const access = () => lines.filter((line) => line.message === "request").map((line) => line.annotations)
  return { runtime, access }
}

describe("the host's request id on the pet store's log lines", () => {
  const closers: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const close of closers) await close()
  })

  it("Fastify: its request.id is the access line's reqId, beside the pet store's own requestId", async () => {
    const { access, runtime } = capturing()
    let next = 0
    const app = Fastify({ genReqId: () => `fastify-${++next}` })
    app.addHook("onSend", async (request, reply) => void reply.header("x-host-id", request.id))
    await app.register(await runtime.runPromise(PetstoreFastify.plugin))
    await app.listen({ port: 0, host: "127.0.0.1" })
    closers.push(() => app.close(), () => runtime.dispose())
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`

    const answer = await send(`${url}/v1/pets`, { headers: { "x-request-id": "ours-1" } })
    expect(answer.status).toBe(401)
    expect(answer.headers["x-host-id"]).toMatch(/^fastify-\d+$/)
    expect(access()).toContainEqual(expect.objectContaining({ requestId: "ours-1", reqId: answer.headers["x-host-id"], status: 401 }))
  })

  it("Express: req.id, as a request-id middleware sets it, is the access line's reqId; without one there is none", async () => {
    const { access, runtime } = capturing()
    const app = express()
    app.use((req, _res, next) => {
      if (req.headers["x-host-id"] !== undefined) (req as { id?: string }).id = String(req.headers["x-host-id"])
      next()
    })
    app.use(await runtime.runPromise(PetstoreExpress.make()))
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening))
    })
    closers.push(() => new Promise((resolve) => server.close(resolve)), () => runtime.dispose())
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

    expect((await send(`${url}/v1/pets`, { headers: { "x-request-id": "ours-2", "x-host-id": "express-7" } })).status).toBe(401)
    expect((await send(`${url}/v1/pets`, { headers: { "x-request-id": "ours-3" } })).status).toBe(401)
    expect(access()).toContainEqual(expect.objectContaining({ requestId: "ours-2", reqId: "express-7" }))
    expect(access().find((line) => line.requestId === "ours-3")).not.toHaveProperty("reqId")
  })
})
