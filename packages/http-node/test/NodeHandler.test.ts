/**
 * The node:http listener: the example host (`examples/hosts/node-http.ts`) at the root and under
 * `/petstore`; a body some other part of the host already read is answered at once.
 */
import Fastify from "fastify"
import * as Http from "node:http"
import { describe, expect, it } from "vitest"
import { start } from "../examples/hosts/node-http.js"
import * as NodeHandler from "../src/NodeHandler.js"
import { Effect } from "effect"
import { checkHost, createKey, hostedBy, listening, send } from "./support/Hosts.js"
import { answers, exchange } from "./support/RawHttp.js"

const listen = (handler: Http.RequestListener) =>
  new Promise<ReturnType<typeof listening>>((resolve) => {
    const server = Http.createServer(handler).listen(0, "127.0.0.1", () => resolve(listening(server)))
  })

describe("node:http host (examples/hosts/node-http.ts)", () => {
  const host = hostedBy(async (runtime) => listening(await start(runtime)))
  const { run } = host

  it("serves the list, POSTs, a mount under /petstore, and each client's address", () => checkHost(host.url, run))

  it("answers at once, with an Error body, a body the host read and kept nothing of", async () => {
    const key = await run(createKey())
    const petstore = await run(NodeHandler.make)
    const host = await listen((req, res) => {
      req.resume() // the host reads the body itself ...
      req.on("end", () => petstore(req, res)) // ... and only then hands the request in
    })
    try {
      const answer = await send(`${host.url}/v1/pets`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Rex", categoryId: 1 })
      })
      expect(answer.status).toBe(500)
      expect(answer.body).toEqual({ code: "internal_error", status: 500, message: expect.stringMatching(/read by the server hosting/) })
      // Still in the interface's order: no key, 401.
      const keyless = await send(`${host.url}/v1/pets`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
      expect(keyless.status).toBe(401)
    } finally {
      await host.close()
    }
  })

  it("under a mount path, a request outside it (the asterisk form too) is 404 not_found with X-Request-Id", async () => {
    const petstore = await run(NodeHandler.makeWith({ basePath: "/api" }))
    const host = await listen(petstore)
    try {
      for (const [target, id] of [["*", "outside-1"], ["/elsewhere", "outside-2"]] as const) {
        const raw = await Effect.runPromise(exchange(host.url, `OPTIONS ${target} HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n`))
        const [reply] = answers(raw)
        expect(reply?.status, raw).toBe(404)
        expect(reply!.body).toMatchObject({ code: "not_found", status: 404 })
        expect(reply!.headers["x-request-id"]).toBe(id)
      }
    } finally {
      await host.close()
    }
  })

  it("takes a body a framework parsed into req.body, and a mount path from req.originalUrl", async () => {
    const key = await run(createKey())
    const petstore = await run(NodeHandler.makeWith({ basePath: "/api" }))
    const host = await listen((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c)).on("end", () => {
        const hosted = req as Http.IncomingMessage & { body?: unknown; originalUrl?: string }
        if (chunks.length > 0) hosted.body = JSON.parse(Buffer.concat(chunks).toString())
        hosted.originalUrl = req.url!
        req.url = req.url!.slice("/api".length) // what a framework does under a mount path
        petstore(req, res)
      })
    })
    try {
      const created = await send(`${host.url}/api/v1/pets`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Kit", categoryId: 3 })
      })
      expect(created.status).toBe(201)
      expect(created.headers.location).toBe(`/api/v1/pets/${created.body.id}`)
      const outside = await send(`${host.url}/elsewhere`)
      expect(outside.status).toBe(404)
      expect(outside.body).toMatchObject({ code: "not_found" })
    } finally {
      await host.close()
    }
  })

  it("answers at once a body Fastify parsed before a hijacked route handed node's request in", async () => {
    const key = await run(createKey())
    const petstore = await run(NodeHandler.make)
    const app = Fastify()
    app.all("/v1/*", (request, reply) => {
      reply.hijack()
      petstore(request.raw, reply.raw)
    })
    await app.listen({ port: 0, host: "127.0.0.1" })
    try {
      const answer = await send(`${listening(app.server).url}/v1/pets`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Rex", categoryId: 1 })
      })
      expect(answer.status).toBe(500)
      expect(answer.body).toMatchObject({ code: "internal_error" })
    } finally {
      await app.close()
    }
  })
})

