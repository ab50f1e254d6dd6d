/**
 * The request path answers at once when every step can (keys and pages in memory), and runs as a
 * fiber when a step must wait. These tests serve through stores that always wait (like a store
 * across a network: their synchronous lookups decline and their reads yield first), so the waiting
 * path is held to the same rules over real HTTP.
 */
import { expect, layer } from "@effect/vitest"
import { AccountStore, PetRepository } from "@petstore/core"
import { Effect } from "effect"
import { expectError, expectRateLimitHeaders, expectStatus, expectTooManyRequests, expectUnauthorized } from "./support/Expectations.js"
import { TestServer } from "./support/TestServer.js"

const later = <A, E>(effect: Effect.Effect<A, E>) => Effect.andThen(Effect.yieldNow, effect)

const waitingAccountStore = (): AccountStore.AccountStore["Service"] => {
  const store = AccountStore.makeMemory()
  return {
    ...store,
    findKeyByHash: (hash) => later(store.findKeyByHash(hash)),
    findAccount: (id) => later(store.findAccount(id))
  }
}

const waitingPetRepository = (): PetRepository.PetRepository["Service"] => {
  const repo = PetRepository.makeMemory()
  return {
    insert: (draft) => later(repo.insert(draft)),
    listAfter: (query) => later(repo.listAfter(query)),
    findById: (id) => later(repo.findById(id)),
    onChange: repo.onChange
  }
}

const UNKNOWN_KEY = "psk_live_" + "A".repeat(32)

layer(
  TestServer.layer({ accountStore: waitingAccountStore(), petRepository: waitingPetRepository() }),
  { excludeTestServices: true }
)("HTTP over stores that make every request wait", (it) => {
  it.effect("a valid key is accepted and pages follow their next links to the end, with rate-limit headers", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.admin.createAccount("pro")
      const created = []
      for (let i = 0; i < 5; i++) created.push(yield* server.createPet(key, { name: `pet ${i}`, categoryId: 1 }))
      const first = expectStatus(yield* server.get("/v1/pets?limit=2", key), 200)
      expectRateLimitHeaders(first)
      expect(first.body).toStrictEqual(created.slice(0, 2))
      // The same full page again is the same answer.
      expect(expectStatus(yield* server.get("/v1/pets?limit=2", key), 200).text).toBe(first.text)
      const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")![1]!
      const second = expectStatus(yield* server.get(next, key), 200)
      expect(second.body).toStrictEqual(created.slice(2, 4))
    }))

  it.effect("an unknown, revoked or missing key is 401 with WWW-Authenticate and rate-limit headers", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key, keyId } = yield* server.admin.createAccount()
      const unknown = expectUnauthorized(yield* server.get("/v1/pets", UNKNOWN_KEY))
      expect(unknown.headers.get("www-authenticate")).toBe("Bearer realm=\"petstore\", error=\"invalid_token\"")
      expectRateLimitHeaders(unknown)
      expectUnauthorized(yield* server.get("/v1/pets"))
      expectStatus(yield* server.get("/v1/pets", key), 200)
      yield* server.admin.revokeKey(keyId)
      expectUnauthorized(yield* server.get("/v1/pets", key))
    }))

  it.effect("the limit applies: past it, 429 with Retry-After, and nothing is consumed", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.enterprise(2)
      expectStatus(yield* server.get("/v1/pets", key), 200)
      expectStatus(yield* server.get("/v1/pets", key), 200)
      expect(expectTooManyRequests(yield* server.get("/v1/pets", key), "rate_limited")).toBeGreaterThan(0)
    }))

  it.effect("a bad cursor is 400 invalid_cursor, an unknown pet 404", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.admin.createAccount()
      expectError(yield* server.get("/v1/pets?cursor=nope", key), 400, "invalid_cursor")
      expectError(yield* server.get("/v1/pets/999999", key), 404, "not_found")
    }))
})
