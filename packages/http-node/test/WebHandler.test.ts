/**
 * The fetch handler in a fetch-style runtime: the example host (`examples/hosts/fetch.ts`) serves
 * it with srvx (the same `fetch` runs on Deno, Bun and workers) at the root and under `/petstore`.
 */
import { describe, expect, it } from "vitest"
import { start } from "../examples/hosts/fetch.js"
import * as WebHandler from "../src/WebHandler.js"
import { checkHost, createKey, hostedBy } from "./support/Hosts.js"

describe("fetch-style host (examples/hosts/fetch.ts)", () => {
  const host = hostedBy(async (runtime) => {
    const server = await start(runtime)
    return { url: new URL(server.url!).origin, close: () => server.close(true) }
  })

  it("serves the list, POSTs, a mount under /petstore, and each client's address (request.ip)", () =>
    checkHost(host.url, host.run))

  it("takes a body the host already parsed, and answers at once one it read and kept nothing of", async () => {
    const key = await host.run(createKey())
    const handle = await host.run(WebHandler.make)
    const post = () =>
      new Request("http://host.test/v1/pets", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Rex", categoryId: 1 })
      })
    const parsedFirst = post()
    const created = await handle(parsedFirst, { body: await parsedFirst.json() })
    expect(created.status).toBe(201)

    const readFirst = post()
    await readFirst.text()
    const consumed = await handle(readFirst)
    expect(consumed.status).toBe(500)
    expect(await consumed.json()).toMatchObject({ code: "internal_error" })
  })
})
