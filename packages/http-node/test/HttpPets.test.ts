import { expect, it, layer } from "@effect/vitest"
import { PetRepository } from "@petstore/core"
import { LIFECYCLE } from "../src/internal/operations/getPet.js"
import { Effect } from "effect"
import { expectError, expectInvalid, expectRateLimitHeaders, expectStatus } from "./support/Expectations.js"
import { type Reply, TestServer } from "./support/TestServer.js"

const MAX_ID = 2 ** 53 - 1
const JSON_TYPE = { "content-type": "application/json" }

/** Sends `text` as the JSON body of `POST /v1/pets`. */
const postRaw = (
  server: TestServer["Service"],
  key: string,
  text: string | Uint8Array | ReadableStream<Uint8Array>,
  headers: Record<string, string> = JSON_TYPE
) =>
  server.request("POST", "/v1/pets", { key, raw: text, headers })

/** The target of the `rel="next"` link, or `undefined` when there is none. */
const nextLink = (reply: Reply): string | undefined => {
  const link = reply.headers.get("link")
  if (link === null) return undefined
  const match = /^<([^>]+)>; rel="next"$/.exec(link)
  expect(match, link).not.toBeNull()
  return match![1]
}

const cursorOf = (link: string): string => new URL(link, "http://x").searchParams.get("cursor")!

/** A fresh server and an account whose limits no test reaches. */
const freshServer = (options: Parameters<typeof TestServer.start>[0] = {}) =>
  Effect.gen(function*() {
    const server = yield* TestServer.start(options)
    const { key } = yield* server.enterprise(1_000_000)
    return { server, key }
  })

/** Creates pets named `pet-1` .. `pet-n` with the given statuses in turn; returns them in order. */
const seed = (server: TestServer["Service"], key: string, n: number, statuses = ["available"]) =>
  Effect.forEach(
    Array.from({ length: n }, (_, i) => i),
    (i) => server.createPet(key, { name: `pet-${i + 1}`, categoryId: 1 + (i % 3), status: statuses[i % statuses.length]! }),
    { concurrency: 1 }
  )

/** Follows `rel="next"` links from `path`, checking each page; returns every pet seen, in order. */
const walk = (server: TestServer["Service"], key: string, path: string, limit: number, between?: Effect.Effect<unknown>) =>
  Effect.gen(function*() {
    const seen: Array<{ id: number; status: string }> = []
    let next: string | undefined = path
    while (next !== undefined) {
      expect(next.startsWith("/v1/pets?")).toBe(true)
      const page = expectStatus(yield* server.get(next, key), 200)
      next = nextLink(page)
      // a page with a next link is full
      if (next !== undefined) expect(page.body).toHaveLength(limit)
      else expect(page.body.length).toBeLessThanOrEqual(limit)
      seen.push(...page.body)
      if (next !== undefined && between !== undefined) yield* between
    }
    return seen
  })

const ids = (pets: ReadonlyArray<{ readonly id: number }>) => pets.map((p) => p.id)

layer(TestServer.layer(), { excludeTestServices: true })("HTTP pets: createPet", (it) => {
  const account = Effect.flatMap(TestServer, (server) => Effect.map(server.enterprise(1_000_000), ({ key }) => ({ server, key })))

  it.effect("201 with the pet, its assigned id, `status: available` by default and a Location to it", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const reply = expectStatus(yield* server.post("/v1/pets", { name: "Rex", categoryId: 7 }, key), 201)
      expect(reply.headers.get("content-type")).toBe("application/json")
      expect(Object.keys(reply.body).sort()).toEqual(["categoryId", "id", "name", "status"])
      expect(reply.body).toMatchObject({ name: "Rex", categoryId: 7, status: "available" })
      expect(Number.isSafeInteger(reply.body.id) && reply.body.id >= 1).toBe(true)
      expect(reply.headers.get("location")).toBe(`/v1/pets/${reply.body.id}`)
      expectRateLimitHeaders(reply)
      const fetched = expectStatus(yield* server.get(reply.headers.get("location")!, key), 200)
      expect(fetched.body).toEqual(reply.body)
      const pending = expectStatus(yield* server.post("/v1/pets", { name: "Tom", categoryId: 1, status: "pending" }, key), 201)
      expect(pending.body.status).toBe("pending")
      expect(pending.body.id).toBeGreaterThan(reply.body.id)
    }))

  it.effect("ignores unknown fields and any `id` in the body: the service assigns ids", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const first = yield* server.createPet(key, { name: "First", categoryId: 1 })
      for (const id of [first.id, first.id + 1000, -5, 0, 1.5, "x", null, { nested: true }]) {
        const reply = expectStatus(
          yield* server.post("/v1/pets", { id, name: "Copy", categoryId: 2, colour: "brown", tags: ["a"] }, key),
          201
        )
        expect(reply.body.id).not.toEqual(id)
        expect(reply.body.id).toBeGreaterThan(first.id)
        expect(reply.body).toEqual({ id: reply.body.id, name: "Copy", categoryId: 2, status: "available" })
      }
    }))

  it.effect("accepts `application/json` in any letter case and with parameters; `1.0` is the integer 1", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      for (const type of ["application/json; charset=utf-8", "Application/JSON", "application/json ; charset=UTF-8"]) {
        expectStatus(yield* postRaw(server, key, "{\"name\":\"Rex\",\"categoryId\":1}", { "content-type": type }), 201)
      }
      const reply = expectStatus(yield* postRaw(server, key, "{\"name\":\"Rex\",\"categoryId\":1.0}"), 201)
      expect(reply.body.categoryId).toBe(1)
    }))

  it.effect("name: blank or whitespace-only, missing or not a string → 400 naming `name`", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      for (const name of ["", " ", "   ", "\t\n", "\u00a0\u2003\u3000", null, 42, ["Rex"]]) {
        expectInvalid(yield* server.post("/v1/pets", { name, categoryId: 1 }, key), "body name")
      }
      expectInvalid(yield* server.post("/v1/pets", { categoryId: 1 }, key), "body name")
      // a name with a visible character is kept as sent
      const padded = expectStatus(yield* server.post("/v1/pets", { name: "  Rex ", categoryId: 1 }, key), 201)
      expect(padded.body.name).toBe("  Rex ")
    }))

  it.effect("name: at most 256 characters, counted in code points", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      for (const unit of ["a", "🐶"]) {
        const ok = expectStatus(yield* server.post("/v1/pets", { name: unit.repeat(256), categoryId: 1 }, key), 201)
        expect(ok.body.name).toBe(unit.repeat(256))
        expectInvalid(yield* server.post("/v1/pets", { name: unit.repeat(257), categoryId: 1 }, key), "body name")
      }
    }))

  it.effect("categoryId: an integer in 1 .. 2^53−1; zero, negatives, fractions, strings, larger numbers → 400", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      for (const categoryId of [0, -1, 1.5, "1", 2 ** 53, 1e300, null, true, [1], { id: 1 }]) {
        expectInvalid(yield* server.post("/v1/pets", { name: "Rex", categoryId }, key), "body categoryId")
      }
      expectInvalid(yield* server.post("/v1/pets", { name: "Rex" }, key), "body categoryId")
      for (const literal of ["1e400", "123456789012345678901234567890", "-0.5", "9007199254740993"]) {
        expectInvalid(yield* postRaw(server, key, `{"name":"Rex","categoryId":${literal}}`), "body categoryId")
      }
      const max = expectStatus(yield* server.post("/v1/pets", { name: "Rex", categoryId: MAX_ID }, key), 201)
      expect(max.body.categoryId).toBe(MAX_ID)
      expectStatus(yield* server.post("/v1/pets", { name: "Rex", categoryId: 1 }, key), 201)
    }))

  it.effect("status: outside the enum (or null) → 400 naming `status`", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      for (const status of ["adopted", "AVAILABLE", "", null, 1]) {
        expectInvalid(yield* server.post("/v1/pets", { name: "Rex", categoryId: 1, status }, key), "body status")
      }
    }))

  it.effect("reports every problem of a body in one message; a body that is not an object is 400", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const reply = expectInvalid(yield* server.post("/v1/pets", { name: " ", categoryId: 0, status: "x" }, key), "body name")
      expect(reply.body.message).toMatch("body categoryId")
      expect(reply.body.message).toMatch("body status")
      for (const body of ["[]", "\"Rex\"", "null", "42", "true"]) {
        expectError(yield* postRaw(server, key, body), 400, "invalid_request")
      }
    }))

  it.effect("malformed JSON, an empty body and invalid UTF-8 → 400 `invalid_json`", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      for (const text of ["{\"name\":", "{name: \"Rex\"}", "{\"name\":\"Rex\",}", "", "nul"]) {
        expectError(yield* postRaw(server, key, text), 400, "invalid_json")
      }
      const invalidUtf8 = Uint8Array.from([...Buffer.from("{\"name\":\""), 0xff, 0xfe, ...Buffer.from("\",\"categoryId\":1}")])
      expectError(yield* postRaw(server, key, invalidUtf8), 400, "invalid_json")
    }))

  it.effect("a missing or wrong Content-Type → 400 `unsupported_media_type`", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const body = "{\"name\":\"Rex\",\"categoryId\":1}"
      expectError(yield* postRaw(server, key, new TextEncoder().encode(body), {}), 400, "unsupported_media_type")
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx", "text/json", "application/ld+json"]) {
        expectError(yield* postRaw(server, key, body, { "content-type": type }), 400, "unsupported_media_type")
      }
    }))

  it.effect("a body of 64 KiB is read; one byte more → 413 `payload_too_large` with an Error body", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const sized = (bytes: number) => {
        const prefix = "{\"name\":\"Big\",\"categoryId\":1,\"pad\":\""
        return prefix + "x".repeat(bytes - prefix.length - 2) + "\"}"
      }
      expect(Buffer.byteLength(sized(65_536))).toBe(65_536)
      expectStatus(yield* postRaw(server, key, sized(65_536)), 201)
      const tooLarge = expectError(yield* postRaw(server, key, sized(65_537)), 413, "payload_too_large")
      expectRateLimitHeaders(tooLarge)
      expectError(yield* postRaw(server, key, sized(1_000_000)), 413, "payload_too_large")
      // the server still answers on new connections afterwards
      expectStatus(yield* server.get("/v1/pets?limit=1", key), 200)
    }))

  it.effect("a chunked body over 64 KiB (no Content-Length) → 413 `payload_too_large` with an Error body", () =>
    Effect.gen(function*() {
      const { key, server } = yield* account
      const chunk = new TextEncoder().encode("x".repeat(16 * 1024))
      const chunked = (chunks: number) => {
        let sent = 0
        return new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent === 0) controller.enqueue(new TextEncoder().encode("{\"name\":\"Big\",\"categoryId\":1,\"pad\":\""))
            if (sent < chunks) controller.enqueue(chunk)
            else {
              controller.enqueue(new TextEncoder().encode("\"}"))
              controller.close()
            }
            sent++
          }
        })
      }
      expectStatus(yield* postRaw(server, key, chunked(3)), 201)
      expectError(yield* postRaw(server, key, chunked(5)), 413, "payload_too_large")
    }))
})

layer(TestServer.layer(), { excludeTestServices: true })("HTTP pets: listPets", (it) => {
  it.effect("orders by id ascending; `limit` defaults to 20 and accepts 1..100", () =>
    Effect.gen(function*() {
      const { key, server } = yield* freshServer()
      const pets = yield* seed(server, key, 25)
      const first = expectStatus(yield* server.get("/v1/pets", key), 200)
      expect(first.headers.get("content-type")).toBe("application/json")
      expect(first.body).toEqual(pets.slice(0, 20))
      expectRateLimitHeaders(first)
      expect(ids(expectStatus(yield* server.get("/v1/pets?limit=1", key), 200).body)).toEqual([pets[0].id])
      expect(expectStatus(yield* server.get("/v1/pets?limit=100", key), 200).body).toEqual(pets)
      expect(expectStatus(yield* server.get("/v1/pets?limit=007", key), 200).body).toHaveLength(7)
      const all = ids(pets)
      expect(all).toEqual([...all].sort((a, b) => a - b))
    }))

  it.effect("`limit` outside 1..100 or not an integer → 400 naming `limit`", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.enterprise(1_000_000)
      for (const limit of ["0", "101", "abc", "1.5", "", "-1", "1e2", "+5", "%205", "0x10", "99999999999999999999999"]) {
        expectInvalid(yield* server.get(`/v1/pets?limit=${limit}`, key), "query parameter limit")
      }
    }))

  it.effect("a repeated `limit`, `status` or `cursor` → 400; unknown parameters are ignored", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.enterprise(1_000_000)
      expectInvalid(yield* server.get("/v1/pets?limit=5&limit=5", key), "query parameter limit")
      expectInvalid(yield* server.get("/v1/pets?status=sold&status=sold", key), "query parameter status")
      expectInvalid(yield* server.get("/v1/pets?status=sold&status=pending", key), "query parameter status")
      expectInvalid(yield* server.get("/v1/pets?cursor=a&cursor=b", key), "query parameter cursor")
      expectStatus(yield* server.get("/v1/pets?page=2&sort=desc&Limit=0&offset=abc&limit2=0", key), 200)
    }))

  it.effect("`status` filters by availability; outside the enum → 400 naming `status`", () =>
    Effect.gen(function*() {
      const { key, server } = yield* freshServer()
      const pets = yield* seed(server, key, 9, ["available", "pending", "sold"])
      for (const status of ["available", "pending", "sold"]) {
        const reply = expectStatus(yield* server.get(`/v1/pets?status=${status}`, key), 200)
        expect(reply.body).toEqual(pets.filter((p) => p.status === status))
        expect(reply.body).toHaveLength(3)
      }
      for (const status of ["adopted", "SOLD", "", "available,sold"]) {
        expectInvalid(yield* server.get(`/v1/pets?status=${status}`, key), "query parameter status")
      }
    }))

  it.effect("`Link: <…>; rel=\"next\"` is path-absolute, present exactly when more pets follow, and walks every pet once", () =>
    Effect.gen(function*() {
      const { key, server } = yield* freshServer()
      const pets = yield* seed(server, key, 10, ["available", "sold"])
      const firstPage = expectStatus(yield* server.get("/v1/pets?limit=3", key), 200)
      expect(firstPage.headers.get("link")).toMatch(/^<\/v1\/pets\?limit=3&cursor=[^>]+>; rel="next"$/)
      expect(ids(yield* walk(server, key, "/v1/pets?limit=3", 3))).toEqual(ids(pets))
      expect(ids(yield* walk(server, key, "/v1/pets?limit=4", 4))).toEqual(ids(pets))
      // a last page that is exactly full has no link to an empty page
      const exact = expectStatus(yield* server.get("/v1/pets?limit=10", key), 200)
      expect(exact.body).toHaveLength(10)
      expect(exact.headers.get("link")).toBeNull()
      const sold = pets.filter((p) => p.status === "sold")
      const soldPage = expectStatus(yield* server.get("/v1/pets?limit=2&status=sold", key), 200)
      expect(soldPage.headers.get("link")).toMatch(/^<\/v1\/pets\?limit=2&status=sold&cursor=[^>]+>; rel="next"$/)
      expect(yield* walk(server, key, "/v1/pets?limit=2&status=sold", 2)).toEqual(sold)
      expect(expectStatus(yield* server.get("/v1/pets?limit=5&status=sold", key), 200).headers.get("link")).toBeNull()
      expect(expectStatus(yield* server.get("/v1/pets?status=pending", key), 200).body).toEqual([])
    }))

  it.effect("pets created while a client pages are neither skipped nor repeated", () =>
    Effect.gen(function*() {
      const { key, server } = yield* freshServer()
      yield* seed(server, key, 7)
      let created = 0
      const createOne = Effect.flatMap(
        Effect.sync(() => ++created),
        (n) => server.createPet(key, { name: `late-${n}`, categoryId: 1 })
      )
      const seen = ids(yield* walk(server, key, "/v1/pets?limit=3", 3, createOne))
      expect(created).toBeGreaterThan(0)
      const all = ids(expectStatus(yield* server.get("/v1/pets?limit=100", key), 200).body)
      expect(all).toHaveLength(7 + created)
      expect(seen).toEqual(all)
    }))

  it.effect("a forged, altered or malformed cursor, or one for another status, → 400 `invalid_cursor`", () =>
    Effect.gen(function*() {
      const { key, server } = yield* freshServer()
      yield* seed(server, key, 6, ["available", "sold"])
      const cursor = cursorOf(nextLink(expectStatus(yield* server.get("/v1/pets?limit=2", key), 200))!)
      const soldCursor = cursorOf(nextLink(expectStatus(yield* server.get("/v1/pets?limit=1&status=sold", key), 200))!)
      expectStatus(yield* server.get(`/v1/pets?cursor=${encodeURIComponent(cursor)}`, key), 200)
      const [body, mac] = cursor.split(".") as [string, string]
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1)
      const other = yield* freshServer()
      yield* seed(other.server, other.key, 3)
      const foreign = cursorOf(nextLink(expectStatus(yield* other.server.get("/v1/pets?limit=1", other.key), 200))!)
      for (
        const bad of [
          "abc",
          "",
          ".",
          "a.b",
          `${flip(body, 0)}.${mac}`,
          `${body}.${flip(mac, mac.length - 1)}`,
          `${body}.${mac}x`,
          `${body}=.${mac}`,
          `${body}`,
          "x".repeat(500),
          foreign
        ]
      ) {
        expectError(yield* server.get(`/v1/pets?limit=2&cursor=${encodeURIComponent(bad)}`, key), 400, "invalid_cursor")
      }
      // bound to the status filter it was issued for; `limit` may change
      expectError(yield* server.get(`/v1/pets?cursor=${encodeURIComponent(cursor)}&status=sold`, key), 400, "invalid_cursor")
      expectError(yield* server.get(`/v1/pets?cursor=${encodeURIComponent(soldCursor)}`, key), 400, "invalid_cursor")
      expectError(
        yield* server.get(`/v1/pets?cursor=${encodeURIComponent(soldCursor)}&status=available`, key),
        400,
        "invalid_cursor"
      )
      expectStatus(yield* server.get(`/v1/pets?limit=5&status=sold&cursor=${encodeURIComponent(soldCursor)}`, key), 200)
    }))

  it.effect("each query is judged on its own values: queries whose values differ only in where a character falls get their own answers", () =>
    Effect.gen(function*() {
      const { key, server } = yield* freshServer()
      yield* seed(server, key, 3)
      // The same characters split differently between `status` and `cursor` (decoding is remembered per query).
      expectInvalid(yield* server.get("/v1/pets?status=available%00&cursor=%00x", key), "status")
      expectError(yield* server.get("/v1/pets?status=available&cursor=%00%00x", key), 400, "invalid_cursor")
      expectInvalid(yield* server.get("/v1/pets?limit=2%00&status=sold", key), "limit")
      expectStatus(yield* server.get("/v1/pets?limit=2&status=sold", key), 200)
    }))
})

layer(TestServer.layer(), { excludeTestServices: true })("HTTP pets: getPet (deprecated)", (it) => {
  const expectLifecycleHeaders = (reply: Reply) => {
    expect(reply.headers.get("deprecation")).toBe(`@${LIFECYCLE.deprecatedAt / 1000}`)
    expect(reply.headers.get("deprecation")).toMatch(/^@\d+$/)
    expect(reply.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT")
    expect(reply.headers.get("link")).toMatch(/<\/v1\/pets>; rel="successor-version"/)
  }

  it.effect("200 with the pet, `Deprecation`, `Sunset` and a `Link` to the replacement", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.enterprise(1_000_000)
      const pet = yield* server.createPet(key, { name: "Rex", categoryId: 3, status: "sold" })
      const reply = expectStatus(yield* server.get(`/v1/pets/${pet.id}`, key), 200)
      expect(reply.body).toEqual(pet)
      expect(reply.headers.get("content-type")).toBe("application/json")
      expectLifecycleHeaders(reply)
      expectRateLimitHeaders(reply)
    }))

  it.effect("pets are the store's inventory: every account sees every pet", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.enterprise(1_000_000)
      const other = yield* server.admin.createAccount("free")
      const pet = yield* server.createPet(owner.key, { name: "Shared", categoryId: 9 })
      expect(expectStatus(yield* server.get(`/v1/pets/${pet.id}`, other.key), 200).body).toEqual(pet)
      expect(expectStatus(yield* server.get("/v1/pets?limit=100", other.key), 200).body).toContainEqual(pet)
    }))

  it.effect("an unknown id → 404 `not_found`, still with the deprecation headers", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.enterprise(1_000_000)
      expectLifecycleHeaders(expectError(yield* server.get("/v1/pets/999999", key), 404, "not_found"))
      expectError(yield* server.get(`/v1/pets/${MAX_ID}`, key), 404, "not_found")
    }))

  it.effect("an id that is not an integer in 1 .. 2^53−1 → 400 naming `petId`", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { key } = yield* server.enterprise(1_000_000)
      for (const id of ["0", "-1", "1.5", "abc", "1e3", "0x10", "9007199254740992", "99999999999999999999999", "%201"]) {
        expectInvalid(yield* server.get(`/v1/pets/${id}`, key), "path parameter petId")
      }
    }))

  it.effect("410 `gone` from the sunset instant on, by the service's clock", () =>
    Effect.gen(function*() {
      const { key, server } = yield* freshServer({ frozenAt: LIFECYCLE.sunsetAt - 60_000 })
      const pet = yield* server.createPet(key, { name: "Rex", categoryId: 1 })
      server.clock.setTime(LIFECYCLE.sunsetAt - 1)
      expectStatus(yield* server.get(`/v1/pets/${pet.id}`, key), 200)
      server.clock.setTime(LIFECYCLE.sunsetAt)
      const gone = expectError(yield* server.get(`/v1/pets/${pet.id}`, key), 410, "gone")
      expectLifecycleHeaders(gone)
      expectRateLimitHeaders(gone)
      expectError(yield* server.get("/v1/pets/999999", key), 410, "gone")
      server.clock.setTime(LIFECYCLE.sunsetAt + 365 * 86_400_000)
      expectError(yield* server.get(`/v1/pets/${pet.id}`, key), 410, "gone")
      // the replacement keeps working
      expect(expectStatus(yield* server.get("/v1/pets", key), 200).body).toEqual([pet])
    }))
})

it.effect("full pages are kept up to a byte budget, not only up to a count: pages of long names fill it sooner", () =>
  Effect.gen(function*() {
    const readsAfter = (nameLength: number) =>
      Effect.scoped(Effect.gen(function*() {
        const memory = PetRepository.makeMemory()
        let reads = 0
        const petRepository: PetRepository.PetRepository["Service"] = {
          ...memory,
          listAfter: (query) => {
            reads++
            return memory.listAfter(query)
          }
        }
        // About 3.3 kB a page of two 256-character names: two such pages fit in 8,000 bytes, three do not.
        const { server, key } = yield* freshServer({ petRepository, pets: { fullPageBytes: 8_000 } })
        for (let i = 0; i < 7; i++) yield* server.createPet(key, { name: String.fromCharCode(97 + i).repeat(nameLength), categoryId: 1 })
        const page = (cursor?: string) =>
          Effect.map(server.get(`/v1/pets?limit=2${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, key), (reply) => {
            expectStatus(reply, 200)
            return cursorOf(nextLink(reply)!)
          })
        const second = yield* page()
        yield* page()
        const third = yield* page(second)
        yield* page()
        yield* page(third)
        const before = reads
        yield* page()
        return { reads: before, again: reads - before }
      }))
    // Long names: the first page was kept, then dropped when the third would have passed the budget.
    expect(yield* readsAfter(256)).toEqual({ reads: 3, again: 1 })
    // Short names: all three pages fit, the first is still kept.
    expect(yield* readsAfter(1)).toEqual({ reads: 3, again: 0 })
  }))
