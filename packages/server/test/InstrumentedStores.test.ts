/**
 * Store calls traced through Effect's tracer, exported by @effect/opentelemetry: a span
 * `store.<Store>.<operation>` per store call when tracing is on, none when it is off; and the
 * wrapper keeps an answer that is already there as it is (no fiber) when tracing is off.
 */
import { OtelTracer as Tracer, Resource } from "@effect/opentelemetry"
import { AccountStore, Errors, PetRepository } from "@petstore/core"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Cause, Effect, Exit, Layer, Option, type Scope } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { instrument } from "../src/InstrumentedStores.js"
import { Metrics } from "../src/Metrics.js"
import { ADMIN_TOKEN, createAccount, get, post } from "./support/Http.js"
import { config, type InProcessServer, start } from "./support/InProcessServer.js"

const exporter = new InMemorySpanExporter()
const TracingLive = Tracer.layer.pipe(
  Layer.provide(Resource.layerEmpty),
  Layer.provide(Layer.succeed(Tracer.OtelTracerProvider, new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })))
)
const traced = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) => Effect.provide(effect, TracingLive)

const servers: Array<InProcessServer> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
  exporter.reset()
})

const storeSpans = (store: string) =>
  exporter.getFinishedSpans().map((s) => s.name).filter((name) => name.startsWith(`store.${store}.`)).sort()

describe("store spans", () => {
  for (const store of ["memory", "sqlite"] as const) {
    it(`with tracing on (${store}), each store call is a span store.<Store>.<operation>`, async () => {
      // (PETSTORE_STORE=memory takes no database: naming one is refused.)
      const database = store === "sqlite" ? { PETSTORE_DATABASE: ":memory:" } : {}
      const conf = await config({ PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN, PETSTORE_STORE: store, ...database }, { tracing: "otlp" })
      const server = await start(conf, undefined, traced)
      servers.push(server)
      const account = await createAccount(server.url)
      exporter.reset()
      expect((await post(server.url, "/v1/pets", account.key, { name: "Rex", categoryId: 1 })).status).toBe(201)
      expect((await post(server.url, "/v1/pets", account.key, { name: "Tom", categoryId: 1 })).status).toBe(201)
      expect((await get(server.url, "/v1/pets", account.key)).status).toBe(200)
      expect((await get(server.url, "/v1/pets/1", account.key)).status).toBe(200)
      expect(storeSpans("PetRepository")).toEqual([
        "store.PetRepository.findById",
        "store.PetRepository.insert",
        "store.PetRepository.insert",
        "store.PetRepository.listAfter"
      ])
    })
  }

  it("with tracing off (the default), no store call makes a span", async () => {
    const conf = await config({ PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN })
    expect(conf.tracing).toBe("off")
    const server = await start(conf, undefined, traced)
    servers.push(server)
    const account = await createAccount(server.url)
    expect((await post(server.url, "/v1/pets", account.key, { name: "Rex", categoryId: 1 })).status).toBe(201)
    expect((await get(server.url, "/v1/pets", account.key)).status).toBe(200)
    expect(exporter.getFinishedSpans().filter((s) => s.name.startsWith("store."))).toEqual([])
  })
})

describe("instrument", () => {
  const pets = PetRepository.makeMemory()

  /** `effect` run synchronously: its exit when nothing in it waits, "forked" when it had to. */
  const runAtOnce = <A, E>(effect: Effect.Effect<A, E>): Exit.Exit<A, E> | "forked" => {
    const fiber = Effect.runFork(effect)
    return fiber.pollUnsafe() ?? "forked"
  }

  it("with tracing off, a lookup answerable at once stays so (the caller needs no fiber), and is measured when it runs", () => {
    const metrics = new Metrics()
    // The in-memory account store answers a key lookup at once.
    const wrapped = instrument("AccountStore", AccountStore.makeMemory(), { metrics, tracing: false })
    const lookup = wrapped.findKeyByHash("x")
    expect(metrics.storeOperation("AccountStore", "findKeyByHash").duration.count).toBe(0)
    expect(runAtOnce(lookup)).toStrictEqual(Exit.succeed(Option.none()))
    expect(metrics.storeOperation("AccountStore", "findKeyByHash").duration.count).toBe(1)
    // With tracing on it runs in a span: the same answer.
    const traced = instrument("AccountStore", AccountStore.makeMemory(), { tracing: true })
    expect(runAtOnce(traced.findKeyByHash("x"))).toStrictEqual(Exit.succeed(Option.none()))
  })

  it("with tracing off, work that completes at once stays so, measured when it runs, and lazy", () => {
    const metrics = new Metrics()
    const repository = PetRepository.makeMemory()
    const wrapped = instrument("PetRepository", repository, { metrics, tracing: false })
    const insert = wrapped.insert({ name: "Rex", categoryId: 1 as never, status: "available" })
    const cells = metrics.storeOperation("PetRepository", "insert")
    // Built, not run: nothing stored, nothing measured.
    expect(cells.duration.count).toBe(0)
    expect(runAtOnce(insert)).toStrictEqual(Exit.succeed({ id: 1, name: "Rex", categoryId: 1, status: "available" }))
    expect(cells.duration.count).toBe(1)
    // As an effect it does its work each time it is run.
    expect(Effect.runSync(insert).id).toBe(2)
    expect(cells.duration.count).toBe(2)
    // Work that throws is timed and counted as an error, and the throw reaches the caller as a defect.
    const broken = instrument("PetRepository", { ...repository, insert: (_draft: PetRepository.PetDraft) => Effect.sync((): never => { throw new Error("broken") }) }, { metrics, tracing: false })
    const died = runAtOnce(broken.insert({ name: "Tom", categoryId: 1 as never, status: "available" }))
    expect(died !== "forked" && Exit.isFailure(died) && String(Cause.squash(died.cause))).toContain("broken")
    expect(cells.duration.count).toBe(3)
    expect(cells.errors).toBe(1)
  })

  it("with tracing on, a call runs in its span; a StoreUnavailable failure is counted as an error, a domain failure is not", async () => {
    const metrics = new Metrics()
    const failing: PetRepository.PetRepository["Service"] = {
      ...pets,
      findById: () => Effect.fail(new Errors.StoreUnavailable({ cause: "down" })),
      // Not a store error: stands for a domain answer a port may fail with (AccountNotFound, KeyNotFound).
      insert: () => Effect.fail(new Errors.PetNotFound({ id: 1 })) as unknown as Effect.Effect<never, Errors.StoreUnavailable>
    }
    const wrapped = instrument("PetRepository", failing, { metrics, tracing: true })
    await Effect.runPromise(Effect.exit(wrapped.findById(1 as never)).pipe(Effect.provide(TracingLive)))
    await Effect.runPromise(Effect.exit(wrapped.insert({ name: "x", categoryId: 1 as never, status: "available" })).pipe(Effect.provide(TracingLive)))
    expect(metrics.storeOperation("PetRepository", "findById").errors).toBe(1)
    expect(metrics.storeOperation("PetRepository", "insert").errors).toBe(0)
    expect(metrics.storeOperation("PetRepository", "insert").duration.count).toBe(1)
    expect(storeSpans("PetRepository")).toEqual(["store.PetRepository.findById", "store.PetRepository.insert"])
    const failed = exporter.getFinishedSpans().find((s) => s.name === "store.PetRepository.findById")!
    expect(failed.status.code).toBe(2) // ERROR
  })
})
