/**
 * Fastify 5 (`@petstore/http-node/fastify`): the example host (`examples/hosts/fastify.ts`)
 * registers the plugin at the root and under the prefix `/petstore`, next to its own JSON routes.
 */
import { describe, expect, it } from "vitest"
import { start } from "../examples/hosts/fastify.js"
import { checkHost, createKey, hostedBy, listening, send } from "./support/Hosts.js"

describe("Fastify 5 host (examples/hosts/fastify.ts)", () => {
  const host = hostedBy(async (runtime) => {
    const app = await start(runtime)
    return { url: listening(app.server).url, close: () => app.close() }
  })

  it("serves the list, POSTs next to Fastify's JSON parser as from raw bytes, a mount under /petstore, and each client's address", () =>
    checkHost(host.url, host.run))

  it("leaves the host's own routes and their body parsing alone", async () => {
    const echo = await send(`${host.url}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: "{\"a\":1}" })
    expect(echo.body).toEqual({ a: 1 })
    expect((await send(`${host.url}/elsewhere`)).status).toBe(404)
  })

  it("answers HEAD and an unknown method on a pet store path as the standalone server does", async () => {
    const auth = { authorization: `Bearer ${await host.run(createKey())}` }
    const head = await send(`${host.url}/v1/pets`, { method: "HEAD", headers: auth })
    expect(head.status).toBe(200)
    expect(head.text).toBe("")
    const put = await send(`${host.url}/v1/pets`, { method: "PUT", headers: auth })
    expect(put.status).toBe(405)
    expect(put.headers.allow).toBe("GET, HEAD, POST")
  })
})
