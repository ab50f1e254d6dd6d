/**
 * Embedding: the example host (`examples/embed-node-http`) mounts the pet store's node:http
 * listener next to its own route, and the fetch handler built from the same application answers
 * web `Request`s. Everything goes through real sockets or real `Request`/`Response` objects.
 */
import { Accounts } from "@petstore/core"
import { Effect, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { type EmbeddedServer, start } from "../examples/embed-node-http/server.js"
import * as WebHandler from "../src/WebHandler.js"
import { createAccount } from "../examples/hosts/account.js"
import { makeRuntime } from "../examples/hosts/petstore.js"

const withEmbedded = async (test: (embedded: EmbeddedServer, key: string) => Promise<void>) => {
  const embedded = await start()
  try {
    const { key } = await embedded.runtime.runPromise(
      Effect.flatMap(Accounts.Accounts, (accounts) => accounts.create({ plan: "free" }))
    )
    await test(embedded, Redacted.value(key.key))
  } finally {
    await embedded.close()
  }
}

const json = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" })

const expectErrorBody = async (response: Response, status: number, code: string) => {
  expect(response.status).toBe(status)
  expect(response.headers.get("content-type")).toMatch(/^application\/json/)
  expect(await response.json()).toEqual({ code, status, message: expect.any(String) })
}

describe("node:http embedding (examples/embed-node-http)", () => {
  it("serves the host's own /health and the pet store's routes on one server", () =>
    withEmbedded(async ({ url }, key) => {
      const health = await fetch(`${url}/health`)
      expect(health.status).toBe(200)
      expect(await health.json()).toEqual({ status: "ok" })

      const created = await fetch(`${url}/v1/pets`, { method: "POST", headers: json(key), body: JSON.stringify({ name: "Rex", categoryId: 1 }) })
      expect(created.status).toBe(201)
      const rex = await created.json()
      expect(rex).toEqual({ id: expect.any(Number), name: "Rex", categoryId: 1, status: "available" })

      const listed = await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
      expect(listed.status).toBe(200)
      expect(listed.headers.get("x-ratelimit-limit")).toBe("60")
      expect(await listed.json()).toEqual([rex])

      await expectErrorBody(await fetch(`${url}/v1/pets`), 401, "unauthorized")
      expect((await fetch(`${url}/docs`)).headers.get("content-type")).toMatch(/^text\/html/)

      // Outside the pet store's paths the host answers, in its own words.
      const elsewhere = await fetch(`${url}/elsewhere`)
      expect(elsewhere.status).toBe(404)
      expect(await elsewhere.text()).toBe("Not served by this host.\n")
    }))

  it("close stops the server and disposes the pet store's runtime", async () => {
    const embedded = await start()
    expect((await fetch(`${embedded.url}/health`)).status).toBe(200)
    await embedded.close()
    await expect(fetch(`${embedded.url}/health`)).rejects.toThrow()
    await expect(embedded.runtime.runPromise(Effect.void)).rejects.toThrow(/disposed/)
  })
})

describe("fetch handler (WebHandler) from the same application", () => {
  it("answers a Request with a JSON body; the node:http side sees the same store", () =>
    withEmbedded(async ({ runtime, url }, key) => {
      const handler = await runtime.runPromise(WebHandler.make)
      const created = await handler(
        new Request("http://embedded.test/v1/pets", {
          method: "POST",
          headers: json(key),
          body: JSON.stringify({ name: "Tom", categoryId: 2, status: "pending" })
        })
      )
      expect(created.status).toBe(201)
      const tom = (await created.json()) as { readonly id: number }
      expect(tom).toEqual({ id: expect.any(Number), name: "Tom", categoryId: 2, status: "pending" })
      expect(created.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/)

      const viaNode = await fetch(`${url}/v1/pets/${tom.id}`, { headers: { authorization: `Bearer ${key}` } })
      expect(await viaNode.json()).toEqual(tom)

      const invalid = await handler(
        new Request("http://embedded.test/v1/pets", { method: "POST", headers: json(key), body: JSON.stringify({ name: "" }) })
      )
      await expectErrorBody(invalid, 400, "invalid_request")
    }))

  it("refuses a body over 64 KiB with 413, whether its length is declared or streamed", () =>
    withEmbedded(async ({ runtime }, key) => {
      const handler = await runtime.runPromise(WebHandler.make)
      const big = JSON.stringify({ name: "x".repeat(70_000), categoryId: 1 })

      const declared = await handler(
        new Request("http://embedded.test/v1/pets", {
          method: "POST",
          headers: { ...json(key), "content-length": String(big.length) },
          body: big
        })
      )
      await expectErrorBody(declared, 413, "payload_too_large")

      const chunk = new TextEncoder().encode(big.slice(0, 16_384))
      let sent = 0
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 5) return controller.close()
          sent++
          controller.enqueue(chunk)
        }
      })
      const streamed = await handler(
        new Request("http://embedded.test/v1/pets", { method: "POST", headers: json(key), body: stream, duplex: "half" } as RequestInit)
      )
      await expectErrorBody(streamed, 413, "payload_too_large")
    }))
})

describe("docs/embedding.md", () => {
  it("its account example makes an account whose key the pet store accepts, and keeps only the key's hash", async () => {
    const runtime = makeRuntime()
    try {
      const { accountId, key, keyId } = await createAccount(runtime)
      const handler = await runtime.runPromise(WebHandler.make)
      const answer = await handler(new Request("http://host.test/v1/pets", { headers: { authorization: `Bearer ${key}` } }), { remoteAddress: "127.0.0.1" })
      expect(answer.status).toBe(200)
      const keys = await runtime.runPromise(Effect.flatMap(Accounts.Accounts, (accounts) => accounts.listKeys(accountId)))
      expect(keys.map((k) => k.id)).toEqual([keyId])
      expect(JSON.stringify(keys)).not.toContain(key)
    } finally {
      await runtime.dispose()
    }
  })

  const root = new URL("../../../", import.meta.url)
  const page = readFileSync(new URL("docs/embedding.md", root), "utf8")
  const snippets = [...page.matchAll(/<!-- snippet: (\S+) -->\n```ts\n([\s\S]*?)\n```/g)]

  it("shows every host's example file, unchanged", () => {
    expect(snippets.map(([, path]) => path)).toEqual([
      "packages/http-node/examples/hosts/petstore.ts",
      "packages/http-node/examples/hosts/account.ts",
      "packages/http-node/examples/hosts/node-http.ts",
      "packages/http-node/examples/hosts/express.ts",
      "packages/http-node/examples/hosts/fastify.ts",
      "packages/http-node/examples/hosts/effect-router.ts",
      "packages/http-node/examples/hosts/effect-httpapi.ts",
      "packages/http-node/examples/hosts/fetch.ts"
    ])
    for (const [, path, code] of snippets) {
      expect(code, path).toBe(readFileSync(new URL(path!, root), "utf8").trimEnd())
    }
  })
})
