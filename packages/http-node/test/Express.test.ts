/**
 * Express 5 (`@petstore/http-node/express`): the example host (`examples/hosts/express.ts`) mounts
 * the pet store after `express.json()`, at the root and under `/petstore`, next to its own routes.
 */
import express from "express"
import { describe, expect, it } from "vitest"
import { start } from "../examples/hosts/express.js"
import * as PetstoreExpress from "../src/Express.js"
import { checkHost, hostedBy, listening, send } from "./support/Hosts.js"

describe("Express 5 host (examples/hosts/express.ts)", () => {
  const host = hostedBy(async (runtime) => listening(await start(runtime)))

  it("serves the list, POSTs after express.json() as from raw bytes, a mount under /petstore, and each client's address", () =>
    checkHost(host.url, host.run))

  it("hands every other path to the host's own routes", async () => {
    const echo = await send(`${host.url}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: "{\"a\":1}" })
    expect(echo.body).toEqual({ a: 1 })
    // Malformed JSON outside the pet store's paths stays the host's to answer.
    expect((await send(`${host.url}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" })).status).toBe(400)
    const elsewhere = await send(`${host.url}/elsewhere`)
    expect(elsewhere.status).toBe(404)
    expect(elsewhere.headers["content-type"]).toMatch(/^text\/html/)
  })

  it("mounted at a path that is part of the pet store's own (app.use(\"/v1\", …)), it routes on req.originalUrl", async () => {
    const app = express()
    app.use(express.json())
    app.use("/v1", await host.run(PetstoreExpress.make()))
    const mounted = listening(await new Promise((resolve) => {
      const server = app.listen(0, "127.0.0.1", () => resolve(server))
    }))
    try {
      const answer = await send(`${mounted.url}/v1/pets`)
      expect(answer.status).toBe(401)
      expect(answer.body).toMatchObject({ code: "unauthorized" })
    } finally {
      await mounted.close()
    }
  })
})
