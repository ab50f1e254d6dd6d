/**
 * `/metrics` through real HTTP: who may read it, what it counts (requests by route and status,
 * latency histograms, limiter verdicts, queue depth and delivery outcomes, store calls and their
 * errors, group-commit batches), and that no key or token appears in it.
 */
import { AccountStore, Errors, IdempotencyStore, MessageProcessor, MessageStore, PageCursor, Petstore, PetRepository, SecureRandom } from "@petstore/core"
import { Effect, Layer } from "effect"
import { createServer } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import * as ServerMetrics from "../src/ServerMetrics.js"
import { ADMIN_TOKEN, createAccount, get, post, request } from "./support/Http.js"
import { config, type InProcessServer, start } from "./support/InProcessServer.js"
import { parse, types, value } from "./support/Prometheus.js"

const servers: Array<InProcessServer> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})
const serve = async (...args: Parameters<typeof start>) => {
  const server = await start(...args)
  servers.push(server)
  return server
}

const scrape = async (base: string) => {
  const reply = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  expect(reply.status).toBe(200)
  expect(reply.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
  const text = await reply.text()
  return { text, samples: parse(text) }
}

const withAdmin = { PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN }

describe("/metrics on the server's port", () => {
  it("answers 404 (Error body) when no admin token is configured", async () => {
    const server = await serve(await config({}))
    const reply = await request(`${server.url}/metrics`, { key: ADMIN_TOKEN })
    expect(reply.status).toBe(404)
    expect(reply.body).toMatchObject({ code: "not_found", status: 404 })
  })

  it("answers 401 (Error body) without the admin token or with another, and 429 once an address spent its failed tokens", async () => {
    const server = await serve(await config(withAdmin))
    const none = await request(`${server.url}/metrics`)
    expect(none.status).toBe(401)
    expect(none.headers.get("content-type")).toBe("application/json")
    expect(none.body).toMatchObject({ code: "unauthorized", status: 401 })
    expect(none.headers.get("www-authenticate")).toContain("Bearer")
    // The admin API's limit: 20 failed tokens a minute per address, counted together with /admin.
    for (let i = 1; i < 20; i++) expect((await request(`${server.url}/admin/v1/accounts`, { key: `wrong-token-${i}` })).status).toBe(401)
    const limited = await request(`${server.url}/metrics`, { key: "wrong-token-20" })
    expect(limited.status).toBe(429)
    expect(limited.body).toMatchObject({ code: "rate_limited", status: 429 })
    // The right token is never refused for others' failures.
    expect((await request(`${server.url}/metrics`, { key: ADMIN_TOKEN })).status).toBe(200)
  })

  it("with the admin token: Prometheus text counting each answer by route template and status, with latency histograms", async () => {
    const server = await serve(await config(withAdmin))
    const account = await createAccount(server.url)
    const limited = await createAccount(server.url, { plan: "enterprise", limits: { perMinute: 1, perDay: 100 } })
    expect((await get(server.url, "/v1/pets", account.key)).status).toBe(200)
    expect((await get(server.url, "/v1/pets", account.key)).status).toBe(200)
    expect((await get(server.url, "/v1/pets/12345", account.key)).status).toBe(404)
    expect((await get(server.url, "/v1/no-such-thing", account.key)).status).toBe(404)
    expect((await request(`${server.url}/v1/pets`)).status).toBe(401)
    expect((await get(server.url, "/v1/pets", limited.key)).status).toBe(200)
    expect((await get(server.url, "/v1/pets", limited.key)).status).toBe(429)

    const { samples, text } = await scrape(server.url)
    const requests = (route: string, status: string) => value(samples, "petstore_http_requests_total", { route, status })
    expect(requests("GET /v1/pets", "200")).toBe(3)
    expect(requests("GET /v1/pets/{petId}", "404")).toBe(1)
    // Not routed (an unknown path, a missing key, a refused request): one fixed label, never the raw path.
    expect(requests("unmatched", "404")).toBe(1)
    expect(requests("unmatched", "401")).toBe(1)
    expect(requests("unmatched", "429")).toBe(1)
    expect(text).not.toContain("no-such-thing")
    expect(text).not.toContain("12345")

    const verdict = (v: string) => value(samples, "petstore_rate_limit_decisions_total", { verdict: v })
    expect(verdict("allowed")).toBe(5)
    expect(verdict("rate_limited")).toBe(1)
    expect(verdict("unauthenticated")).toBe(1)
    expect(verdict("key_banned")).toBe(0)

    // Buckets are cumulative, end at +Inf with the count, and the count is the requests of the route.
    const buckets = samples.filter((s) => s.name === "petstore_http_request_duration_seconds_bucket" && s.labels.route === "GET /v1/pets")
    expect(buckets.length).toBeGreaterThan(5)
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value)
    expect(buckets.at(-1)!.labels.le).toBe("+Inf")
    expect(buckets.at(-1)!.value).toBe(3)
    expect(value(samples, "petstore_http_request_duration_seconds_count", { route: "GET /v1/pets" })).toBe(3)
    expect(value(samples, "petstore_http_request_duration_seconds_sum", { route: "GET /v1/pets" })).toBeGreaterThan(0)

    const declared = types(text)
    expect(declared).toMatchObject({
      petstore_http_requests_total: "counter",
      petstore_http_request_duration_seconds: "histogram",
      petstore_rate_limit_decisions_total: "counter",
      petstore_message_queue_depth: "gauge",
      petstore_message_deliveries_total: "counter",
      petstore_store_operation_duration_seconds: "histogram",
      petstore_store_errors_total: "counter",
      petstore_group_commit_batch_size: "histogram",
      process_resident_memory_bytes: "gauge"
    })
    // Store calls are measured by store and operation.
    expect(value(samples, "petstore_store_operation_duration_seconds_count", { store: "PetRepository", operation: "listAfter" })).toBe(3)
    // Neither a key nor the admin token is ever shown.
    for (const secret of [ADMIN_TOKEN, account.key, limited.key]) expect(text).not.toContain(secret)
    expect(text).not.toContain(account.accountId)
  })

  it("shows the queue's depth read from the message store, and each delivery outcome", async () => {
    const server = await serve(await config(withAdmin))
    const account = await createAccount(server.url)
    const ids: Array<string> = []
    for (const text of ["one", "two", "three"]) ids.push((await post(server.url, "/v1/messages", account.key, { message: text })).body.id)
    for (const id of ids) {
      while ((await get(server.url, `/v1/messages/${id}`, account.key)).body.status !== "delivered") {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    const { samples } = await scrape(server.url)
    expect(value(samples, "petstore_message_deliveries_total", { outcome: "delivered" })).toBe(3)
    expect(value(samples, "petstore_message_deliveries_total", { outcome: "failed" })).toBe(0)
    expect(samples.filter((s) => s.name === "petstore_message_queue_depth").map((s) => [s.labels.state, s.value])).toEqual([
      ["queued", 0],
      ["processing", 0]
    ])
    expect(value(samples, "petstore_store_operation_duration_seconds_count", { store: "MessageStore", operation: "insert" })).toBe(3)
  })

  it("the queue's depth shows messages waiting and being processed", async () => {
    const conf = await config(withAdmin)
    // A processor that never finishes: the two workers hold two messages, the third waits.
    const stuck = Layer.succeed(MessageProcessor.MessageProcessor, { process: () => Effect.never })
    const services = Petstore.layer({ messageQueue: { concurrency: 2, drainMillis: 50 } }).pipe(
      Layer.provideMerge(ServerMetrics.observeStores(conf, memoryStores(PetRepository.PetRepository.layerMemory))),
      Layer.provide(SecureRandom.SecureRandom.Live),
      Layer.provide(stuck)
    )
    const server = await serve(conf, services)
    const account = await createAccount(server.url)
    const ids: Array<string> = []
    for (const text of ["one", "two", "three"]) ids.push((await post(server.url, "/v1/messages", account.key, { message: text })).body.id)
    const states = async () => Promise.all(ids.map(async (id) => (await get(server.url, `/v1/messages/${id}`, account.key)).body.status))
    while ((await states()).filter((s) => s === "processing").length < 2) await new Promise((resolve) => setTimeout(resolve, 20))
    const { samples } = await scrape(server.url)
    expect(value(samples, "petstore_message_queue_depth", { state: "queued" })).toBe(1)
    expect(value(samples, "petstore_message_queue_depth", { state: "processing" })).toBe(2)
  })

  it("counts retried and failed deliveries", async () => {
    const conf = await config(withAdmin)
    const failing = Layer.succeed(MessageProcessor.MessageProcessor, { process: () => Effect.fail(new MessageProcessor.ProcessingFailed({ reason: "recipient down" })) })
    const services = Petstore.layer({ messageQueue: { maxAttempts: 2, backoffBaseMillis: 1, backoffMaxMillis: 1 } }).pipe(
      Layer.provideMerge(ServerMetrics.observeStores(conf, memoryStores(PetRepository.PetRepository.layerMemory))),
      Layer.provide(SecureRandom.SecureRandom.Live),
      Layer.provide(failing)
    )
    const server = await serve(conf, services)
    const account = await createAccount(server.url)
    const { id } = (await post(server.url, "/v1/messages", account.key, { message: "hello" })).body
    while ((await get(server.url, `/v1/messages/${id}`, account.key)).body.status !== "failed") {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const { samples } = await scrape(server.url)
    expect(value(samples, "petstore_message_deliveries_total", { outcome: "retried" })).toBe(1)
    expect(value(samples, "petstore_message_deliveries_total", { outcome: "failed" })).toBe(1)
    expect(value(samples, "petstore_message_deliveries_total", { outcome: "delivered" })).toBe(0)
  })

  it("counts store errors by store and operation when the store fails (503)", async () => {
    const conf = await config(withAdmin)
    const brokenPets = Layer.sync(PetRepository.PetRepository, () => ({
      ...PetRepository.makeMemory(),
      listAfter: () => Effect.fail(new Errors.StoreUnavailable({ cause: new Error("disk gone") }))
    }))
    const services = Petstore.layer().pipe(
      Layer.provideMerge(ServerMetrics.observeStores(conf, memoryStores(brokenPets))),
      Layer.provide(SecureRandom.SecureRandom.Live),
      Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
    )
    const server = await serve(conf, services)
    const account = await createAccount(server.url)
    expect((await get(server.url, "/v1/pets", account.key)).status).toBe(503)
    expect((await get(server.url, "/v1/pets", account.key)).status).toBe(503)
    expect((await post(server.url, "/v1/pets", account.key, { name: "Rex", categoryId: 1 })).status).toBe(201)
    const { samples } = await scrape(server.url)
    expect(value(samples, "petstore_store_errors_total", { store: "PetRepository", operation: "listAfter" })).toBe(2)
    expect(value(samples, "petstore_store_errors_total", { store: "PetRepository", operation: "insert" })).toBe(0)
    // A domain answer (no such key) is not a store error.
    expect(value(samples, "petstore_store_errors_total", { store: "AccountStore", operation: "findKeyByHash" })).toBe(0)
    expect(value(samples, "petstore_http_requests_total", { route: "GET /v1/pets", status: "503" })).toBe(2)
  })

  it("records group-commit batch sizes on SQLite", async () => {
    const server = await serve(await config({ ...withAdmin, PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: ":memory:" }))
    const account = await createAccount(server.url)
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(server.url, "/v1/pets", account.key, { name: `pet ${i}`, categoryId: 1 }))
    )
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 201))
    const { samples } = await scrape(server.url)
    const batches = value(samples, "petstore_group_commit_batch_size_count")
    const writes = value(samples, "petstore_group_commit_batch_size_sum")
    expect(batches).toBeGreaterThanOrEqual(1)
    // Every pet was written in some batch (with the account's and the key's writes, and limiter state).
    expect(writes).toBeGreaterThanOrEqual(20)
    expect(value(samples, "petstore_group_commit_batch_size_bucket", { le: "+Inf" })).toBe(batches)
  })

  it("PETSTORE_METRICS=false: nothing is collected and /metrics is an ordinary unknown path", async () => {
    const server = await serve(await config({ ...withAdmin, PETSTORE_METRICS: "false" }))
    const account = await createAccount(server.url)
    expect((await request(`${server.url}/metrics`, { key: ADMIN_TOKEN })).status).toBe(401)
    expect((await get(server.url, "/metrics", account.key)).status).toBe(404)
  })

  it("PETSTORE_METRICS_ADDRESS serves them on their own listener without a token", async () => {
    const port = await freePort()
    const server = await serve(await config({ PETSTORE_METRICS_ADDRESS: `127.0.0.1:${port}` }))
    await request(`${server.url}/v1/pets`)
    const reply = await fetch(`http://127.0.0.1:${port}/metrics`)
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    expect(value(parse(await reply.text()), "petstore_http_requests_total", { route: "unmatched", status: "401" })).toBe(1)
    const other = await request(`http://127.0.0.1:${port}/v1/pets`)
    expect(other.status).toBe(404)
    expect(other.body).toMatchObject({ code: "not_found", status: 404 })
    // Without an admin token, the server's own port does not serve them.
    expect((await request(`${server.url}/metrics`)).status).toBe(404)
  })
})

describe("metrics settings", () => {
  it("PETSTORE_METRICS defaults to on; PETSTORE_METRICS_ADDRESS is read as host and port", async () => {
    expect((await config({})).metrics).toBe(true)
    expect((await config({ PETSTORE_METRICS: "false" })).metrics).toBe(false)
    expect((await config({ PETSTORE_METRICS_ADDRESS: "0.0.0.0:9464" })).metricsAddress).toEqual({ host: "0.0.0.0", port: 9464 })
    expect((await config({ PETSTORE_METRICS_ADDRESS: "[::1]:9464" })).metricsAddress).toEqual({ host: "::1", port: 9464 })
    expect((await config({})).metricsAddress).toBeUndefined()
  })

  for (const [name, value] of [["PETSTORE_METRICS", "maybe"], ["PETSTORE_METRICS_ADDRESS", "9464"], ["PETSTORE_METRICS_ADDRESS", "host:70000"]] as const) {
    it(`${name}=${value} is refused with a message that names it`, async () => {
      await expect(config({ [name]: value })).rejects.toThrow(name)
    })
  }

  it("a metrics address with metrics off, or on the server's own address, is refused with a message that names it", async () => {
    await expect(config({ PETSTORE_METRICS: "false", PETSTORE_METRICS_ADDRESS: "127.0.0.1:9464" }))
      .rejects.toThrow(/PETSTORE_METRICS_ADDRESS .*PETSTORE_METRICS is false/)
    await expect(config({ PORT: "9464", HOST: "127.0.0.1", PETSTORE_METRICS_ADDRESS: "127.0.0.1:9464" }))
      .rejects.toThrow(/PETSTORE_METRICS_ADDRESS must differ from HOST:PORT/)
    expect((await config({ PORT: "9464", HOST: "127.0.0.1", PETSTORE_METRICS_ADDRESS: "127.0.0.1:9465" })).metricsAddress)
      .toEqual({ host: "127.0.0.1", port: 9465 })
  })
})

const memoryStores = (pets: Layer.Layer<PetRepository.PetRepository>) =>
  IdempotencyStore.IdempotencyStore.layerMemory.pipe(
    Layer.provideMerge(Layer.mergeAll(pets, AccountStore.AccountStore.layerMemory, MessageStore.MessageStore.layerMemory, PageCursor.CursorSigner.random))
  )

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
