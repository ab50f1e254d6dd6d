/**
 * The health endpoints through real HTTP: `/healthz` and `/readyz` answer without a key, at their
 * exact paths only, consume and grant no rate-limit bucket, share one store probe however many
 * ask, name what is unreachable in a 503 Error body, and answer 503 from the moment shutdown
 * begins while the server still serves.
 */
import { describe, expect, it } from "@effect/vitest"
import { Readiness } from "@petstore/core"
import { Effect, Exit, Fiber, Scope } from "effect"
import { start as startExpress } from "../examples/hosts/express.js"
import { start as startFastify } from "../examples/hosts/fastify.js"
import { hostedBy, listening, send } from "./support/Hosts.js"
import * as RawHttp from "./support/RawHttp.js"
import { type Reply, TestServer } from "./support/TestServer.js"

const T = Date.UTC(2026, 0, 5, 12, 0, 0)

const expectError = (reply: { status: number; headers: Headers; body: any }, status: number, code: string) => {
  expect(reply.status).toBe(status)
  expect(reply.headers.get("content-type")).toBe("application/json")
  expect(reply.body).toEqual({ code, message: expect.any(String), status })
}

/** A store readiness that counts its probes and answers `state` (changed by the test). */
const countingStore = (initial: Readiness.Check = Readiness.UP) => {
  const probes = { count: 0, answer: initial }
  const service: Readiness.StoreReadiness["Service"] = {
    check: Effect.sync(() => {
      probes.count++
      return probes.answer
    })
  }
  return { probes, service }
}

describe("/healthz and /readyz", () => {
  it.effect("answer 200 without a key, with no rate-limit headers and no caching", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start()
      const health = yield* server.get("/healthz")
      expect(health.status).toBe(200)
      expect(health.headers.get("content-type")).toBe("application/json")
      expect(health.headers.get("cache-control")).toBe("no-store")
      expect(health.body).toEqual({ status: "ok" })
      const ready = yield* server.get("/readyz")
      expect(ready.status).toBe(200)
      expect(ready.body).toEqual({ status: "ready", checks: { store: "up", rateLimiter: "up" } })
      expect(ready.headers.get("cache-control")).toBe("no-store")
      for (const reply of [health, ready]) {
        expect(reply.headers.get("x-ratelimit-limit")).toBeNull()
        expect(reply.headers.get("www-authenticate")).toBeNull()
      }
      // A query string does not change the endpoint.
      expect((yield* server.get("/readyz?verbose=1")).body).toEqual(ready.body)
    }))

  it.effect("HEAD answers 200 with no body; other methods 405 with Allow and an Error body", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start()
      for (const path of ["/healthz", "/readyz"]) {
        const head = yield* server.request("HEAD", path)
        expect(head.status).toBe(200)
        expect(head.text).toBe("")
        for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
          const reply = yield* server.request(method, path, { json: {} })
          expectError(reply, 405, "method_not_allowed")
          expect(reply.headers.get("allow")).toBe("GET, HEAD")
        }
      }
    }))

  it.effect("only the exact paths answer: anything else still needs a key and reaches nothing through them", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start()
      const { key } = yield* server.enterprise(100_000)
      yield* server.createPet(key, { name: "Rex", categoryId: 1 })
      // Sent as bytes: fetch would resolve the dot segments before sending.
      const tricks = [
        "/healthz/../v1/pets",
        "/readyz/../v1/pets",
        "/healthz/",
        "/readyz/x",
        "/healthzz",
        "/v1/healthz",
        "/v1/readyz",
        "//healthz",
        "/healthz%2F..%2Fv1%2Fpets",
        "/HEALTHZ"
      ]
      const raw = yield* RawHttp.exchange(
        server.url,
        tricks.map((path) => RawHttp.request("GET", path)).join("") + RawHttp.request("GET", "/healthz", { headers: "Connection: close\r\n" })
      )
      const replies = RawHttp.answers(raw)
      expect(replies.map((r) => r.status)).toEqual([...tricks.map(() => 401), 200])
      // With a key, the same paths are unknown routes: none lists the pets.
      const keyed = RawHttp.answers(
        yield* RawHttp.exchange(
          server.url,
          tricks.map((path) => RawHttp.request("GET", path, { key })).join("") +
            RawHttp.request("GET", "/readyz", { headers: "Connection: close\r\n" })
        )
      )
      expect(keyed.map((r) => r.status)).toEqual([...tricks.map(() => 404), 200])
      for (const reply of keyed.slice(0, -1)) expect(reply.body.code).toBe("not_found")
    }))

  it.effect("neither consumes nor grants rate limit: a key's bucket and an address's failed-auth bucket are untouched", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ frozenAt: T, rateLimiter: { failedAuthPerMinute: 2 } })
      const { key } = yield* server.enterprise(3)
      const first = yield* server.get("/v1/pets", key)
      expect(first.headers.get("x-ratelimit-remaining")).toBe("2")
      for (let i = 0; i < 20; i++) {
        for (const path of ["/healthz", "/readyz"]) {
          expect((yield* server.get(path, key)).status).toBe(200)
          expect((yield* server.get(path, "psk_live_not_a_key")).status).toBe(200)
        }
      }
      const second = yield* server.get("/v1/pets", key)
      expect(second.status).toBe(200)
      expect(second.headers.get("x-ratelimit-remaining")).toBe("1")
      // The address's failed-authentication bucket (2) is still full: two 401s, then 429.
      const refused = [yield* server.get("/v1/pets"), yield* server.get("/v1/pets"), yield* server.get("/v1/pets")]
      expect(refused.map((r) => r.status)).toEqual([401, 401, 429])
      // A key told to wait is still told to wait after asking for health: nothing was granted.
      yield* server.get("/v1/pets", key)
      expect((yield* server.get("/v1/pets", key)).status).toBe(429)
      expect((yield* server.get("/readyz", key)).status).toBe(200)
      expect((yield* server.get("/v1/pets", key)).status).toBe(429)
    }))

  it.effect("a burst of readiness requests shares one store probe; the answer is reused for a second", () =>
    Effect.gen(function*() {
      const store = countingStore()
      const server = yield* TestServer.start({ frozenAt: T, storeReadiness: store.service })
      const burst = (n: number) => Effect.all(Array.from({ length: n }, () => server.get("/readyz")), { concurrency: "unbounded" })
      const replies = yield* burst(200)
      expect(replies.every((r: Reply) => r.status === 200)).toBe(true)
      expect(store.probes.count).toBe(1)
      server.clock.adjust(999)
      yield* burst(50)
      expect(store.probes.count).toBe(1)
      server.clock.adjust(1)
      yield* burst(50)
      expect(store.probes.count).toBe(2)
      // /healthz never probes.
      server.clock.adjust(5_000)
      yield* Effect.all(Array.from({ length: 50 }, () => server.get("/healthz")), { concurrency: "unbounded" })
      expect(store.probes.count).toBe(2)
    }))

  it.effect("a store that cannot be reached: 503 `unavailable` naming it, with Retry-After; 200 again once it answers", () =>
    Effect.gen(function*() {
      const store = countingStore({ state: "down", reason: "the store (test) cannot be reached" })
      const server = yield* TestServer.start({ frozenAt: T, storeReadiness: store.service })
      const down = yield* server.get("/readyz")
      expectError(down, 503, "unavailable")
      expect(down.body.message).toBe("Not ready: the store (test) cannot be reached.")
      expect(down.headers.get("retry-after")).toBe("1")
      expect((yield* server.get("/healthz")).status).toBe(200)
      store.probes.answer = Readiness.UP
      server.clock.adjust(1_000)
      expect((yield* server.get("/readyz")).status).toBe(200)
    }))

  it.effect("a degraded dependency keeps the instance ready and is reported", () =>
    Effect.gen(function*() {
      const store = countingStore({ state: "degraded", reason: "the store (test) is slow" })
      const server = yield* TestServer.start({ storeReadiness: store.service })
      const reply = yield* server.get("/readyz")
      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({
        status: "ready",
        checks: { store: "degraded", rateLimiter: "up" },
        degraded: ["the store (test) is slow"]
      })
    }))

  it.effect("a probe that never answers counts as down once its bound has passed", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ storeReadiness: { check: Effect.never } })
      const reply = yield* server.get("/readyz")
      expectError(reply, 503, "unavailable")
      expect(reply.body.message).toBe("Not ready: the store did not answer within 2s.")
    }))

  it.live("from the moment shutdown begins /readyz answers 503, on kept-alive and new connections, while the rest is still served; every answer then says Connection: close", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const server = yield* TestServer.start({ drainDelay: "5 seconds" }).pipe(Scope.provide(scope))
      const { key } = yield* server.enterprise(100_000)
      const kept = yield* RawHttp.connect(server.url)
      kept.write(RawHttp.request("GET", "/readyz"))
      expect((yield* Effect.promise(() => kept.awaitAnswers(1)))[0]!.status).toBe(200)

      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      // The close runs on its own fiber: ask until it has begun (every answer before is 200).
      let answers = 1
      let last: RawHttp.RawAnswer
      do {
        kept.write(RawHttp.request("GET", "/readyz"))
        answers++
        last = (yield* Effect.promise(() => kept.awaitAnswers(answers))).at(-1)!
      } while (last.headers["connection"] !== "close" && answers < 10_000)
      // From then on every answer ends its connection, so a balancer's next request goes elsewhere.
      expect(last.headers["connection"]).toBe("close")
      if (last.status !== 200) {
        expect(last.status).toBe(503)
        expect(last.body).toEqual({ code: "unavailable", message: "Not ready: the server is shutting down.", status: 503 })
        expect(last.headers["retry-after"]).toBe("1")
      }
      const fresh = yield* server.get("/readyz")
      expectError(fresh, 503, "unavailable")
      const again = yield* RawHttp.connect(server.url)
      again.write(RawHttp.request("GET", "/healthz"))
      expect((yield* Effect.promise(() => again.awaitAnswers(1)))[0]!.headers["connection"]).toBe("close")
      expect((yield* server.get("/healthz")).status).toBe(200)
      expect((yield* server.get("/v1/pets", key)).status).toBe(200)
      yield* Fiber.join(closing)
    }), 30_000)
})

describe("hosts that route the pet store's paths (App.paths) answer the health endpoints at the root", () => {
  const express = hostedBy(async (runtime) => listening(await startExpress(runtime)))
  const fastify = hostedBy(async (runtime) => {
    const app = await startFastify(runtime)
    return { url: listening(app.server).url, close: () => app.close() }
  })
  for (const [name, host] of [["Express", express], ["Fastify", fastify]] as const) {
    it(`${name}: /healthz and /readyz without a key; 405 for POST; a neighbouring path is the host's`, async () => {
      expect((await send(`${host.url}/healthz`)).body).toEqual({ status: "ok" })
      expect((await send(`${host.url}/readyz`)).body).toEqual({ status: "ready", checks: { store: "up", rateLimiter: "up" } })
      const post = await send(`${host.url}/readyz`, { method: "POST" })
      expect(post.status).toBe(405)
      expect(post.headers.allow).toBe("GET, HEAD")
      // Not the pet store's (it would ask for a key): the host's own 404.
      const neighbour = await send(`${host.url}/healthz/x`)
      expect(neighbour.status).toBe(404)
      expect(neighbour.body?.code).toBeUndefined()
    })
  }
})
