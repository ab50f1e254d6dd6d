/**
 * `/metrics` as the application serves it: the admin token's route, whose scrape is the embedder's.
 * A scrape that fails is answered like any failed request: an Error body with the request id,
 * labelled with the route, never the host's bare 500.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ADMIN_TOKEN, TestServer } from "./support/TestServer.js"

const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

describe("/metrics", () => {
  it.effect("with the admin token: the scrape's text, not cached", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ metrics: { scrape: Effect.succeed("up 1\n"), contentType: CONTENT_TYPE } })
      const reply = yield* server.request("GET", "/metrics", { key: ADMIN_TOKEN })
      expect(reply.status).toBe(200)
      expect(reply.headers.get("content-type")).toBe(CONTENT_TYPE)
      expect(reply.headers.get("cache-control")).toBe("no-store")
      expect(reply.text).toBe("up 1\n")
    }))

  it.effect("without the admin token (none, or an API key): 401 naming the admin token", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ metrics: { scrape: Effect.succeed("up 1\n"), contentType: CONTENT_TYPE } })
      const { key } = yield* server.admin.createAccount()
      for (const given of [undefined, key]) {
        const reply = yield* server.request("GET", "/metrics", given === undefined ? {} : { key: given })
        expect(reply.status).toBe(401)
        expect(reply.body).toEqual({
          code: "unauthorized",
          status: 401,
          message: "The admin token is required: send `Authorization: Bearer <PETSTORE_ADMIN_TOKEN>` (an API key is not accepted here)."
        })
      }
    }))

  it.effect("a scrape that fails: 500 with an Error body and a request id", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({
        quiet: true,
        metrics: { scrape: Effect.die(new Error("collector failed")), contentType: CONTENT_TYPE }
      })
      const reply = yield* server.request("GET", "/metrics", { key: ADMIN_TOKEN, headers: { "x-request-id": "scrape-1" } })
      expect(reply.status).toBe(500)
      expect(reply.headers.get("content-type")).toBe("application/json")
      expect(reply.body).toEqual({ code: "internal_error", message: expect.any(String), status: 500 })
      expect(reply.headers.get("x-request-id")).toBe("scrape-1")
      expect(reply.headers.get("cache-control")).toBe("no-store")
    }))
})
