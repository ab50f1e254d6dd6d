/**
 * Hostile bodies through real HTTP: JSON nested thousands of levels deep, lone surrogates, and
 * values far larger than any answer should repeat. Each gets a short 400 Error body; none a 500.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer } from "./support/TestServer.js"

const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels)
const json = { "content-type": "application/json" }

layer(TestServer.layer({ quiet: true }), { excludeTestServices: true })("HTTP hostile input", (it) => {
  it.effect("JSON nested 2,000 levels deep in any field: 400 invalid_json with a short message (pets, messages, admin)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.admin.createAccount("enterprise", { perMinute: 1_000, perDay: 100_000 })
      const bodies = [
        ["/v1/pets", `{"name":${deep(2_000)},"categoryId":1}`, key],
        ["/v1/pets", `{"name":"Rex","categoryId":1,"extra":${deep(2_000)}}`, key],
        ["/v1/messages", `{"message":${deep(2_000)}}`, key],
        ["/admin/v1/accounts", `{"plan":${deep(2_000)}}`, server.adminToken]
      ] as const
      for (const [path, raw, token] of bodies) {
        const reply = yield* server.request("POST", path, { key: token, raw, headers: json })
        expect(reply.status).toBe(400)
        expect(reply.body).toStrictEqual({ code: "invalid_json", message: "The body nests deeper than 32 levels.", status: 400 })
      }
      // Nesting a body may well have (well under the bound) is validated as usual.
      const shallow = yield* server.request("POST", "/v1/pets", { key, raw: `{"name":${deep(20)},"categoryId":1}`, headers: json })
      expect(shallow.status).toBe(400)
      expect(shallow.body.code).toBe("invalid_request")
    }))

  it.effect("lone surrogates in a name or a message: 400 invalid_request (a well-formed pair is kept as sent)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.admin.createAccount("enterprise", { perMinute: 1_000, perDay: 100_000 })
      for (const [path, raw] of [
        ["/v1/pets", String.raw`{"name":"\ud800","categoryId":1}`],
        ["/v1/pets", String.raw`{"name":"Rex \udc00","categoryId":1}`],
        ["/v1/messages", String.raw`{"message":"hi \ud83d"}`]
      ] as const) {
        const reply = yield* server.request("POST", path, { key, raw, headers: json })
        expect(reply.status).toBe(400)
        expect(reply.body.code).toBe("invalid_request")
        expect(reply.body.message).toMatch(/well-formed Unicode/)
      }
      const pair = yield* server.request("POST", "/v1/pets", { key, raw: String.raw`{"name":"Rex \ud83d\udc36","categoryId":1}`, headers: json })
      expect(pair.status).toBe(201)
      expect(pair.body.name).toBe("Rex 🐶")
      const read = yield* server.get(`/v1/pets/${pair.body.id}`, key)
      expect(read.body.name).toBe("Rex 🐶")
    }))

  it.effect("a 60 KB bad value is not echoed: the 400 message stays under 1 KB", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.admin.createAccount("enterprise", { perMinute: 1_000, perDay: 100_000 })
      const huge = "x".repeat(60_000)
      const reply = yield* server.request("POST", "/v1/pets", { key, json: { name: "Rex", categoryId: huge, status: "lost" } })
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe("invalid_request")
      expect(reply.body.message.length).toBeLessThanOrEqual(1_000)
      expect(reply.text.length).toBeLessThan(1_200)
      expect(reply.body.message).toMatch(/^body categoryId: /)
    }))
})
