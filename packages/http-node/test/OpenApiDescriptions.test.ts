/**
 * The prose every renderer of the served document shows (`/v1/openapi.json`): the introduction with
 * its sections, the tags' descriptions, and a description for each of the five operations.
 */
import { expect, layer } from "@effect/vitest"
import { OpenApi } from "effect/http-api"
import { Context, Effect } from "effect"
import { OPERATIONS } from "../src/Api.js"
import { expectStatus } from "./support/Expectations.js"
import { TestServer } from "./support/TestServer.js"

layer(TestServer.layer())("OpenApiDescriptions", (it) => {
  it.effect("the served document carries the introduction, the tags' and every operation's description", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const document = expectStatus(yield* server.get("/v1/openapi.json"), 200).body
      const headings = [...(document.info.description as string).matchAll(/^## (.+)$/gm)].map((m) => m[1])
      expect(headings).toEqual(["Authentication", "Rate limits", "Pagination", "Deprecation", "Stability", "Errors", "Not served"])
      expect(document.tags.map((t: { name: string }) => t.name)).toEqual(["animals", "messages", "usage", "store", "pets"])
      for (const tag of document.tags) expect(tag.description).toMatch(/\w/)

      const operations = Object.values(document.paths).flatMap((item) => Object.values(item as Record<string, any>))
      expect(operations.map((op) => op.operationId).sort()).toEqual(["createMessage", "createPet", "getMessage", "getPet", "getUsage", "listPets"])
      // Each operation's description is the one its module declares.
      const declared = new Map(OPERATIONS.map((o) => [o.endpoint.identifier, Context.getUnsafe(o.endpoint.annotations, OpenApi.Description)]))
      for (const op of operations) {
        expect(op.description, op.operationId).toMatch(/\w/)
        expect(op.description, op.operationId).toBe(declared.get(op.operationId))
      }
      const getPet = operations.find((op) => op.operationId === "getPet")
      expect(getPet.description).toContain("Thu, 05 Dec 2030 00:00:00 GMT")
    }))
})
