/**
 * Traces: with `observe: { tracing: true }` every request is a server span through Effect's tracer,
 * exported by `@effect/opentelemetry`. The example of docs/operations.md is run as written, over
 * node:http; a store call made for a request (wrapped in a span, as a store wrapper does) is a
 * child of the request's span.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { SpanKind, SpanStatusCode } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import {
  AccountStore,
  MessageProcessor,
  MessageStore,
  PageCursor,
  PetRepository,
  Petstore,
  SecureRandom,
  IdempotencyStore
} from "@petstore/core"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime, Option, References } from "effect"
import { readFileSync } from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exporter, makeRuntime } from "../examples/tracing/traced.js"
import { App } from "../src/App.js"
import * as NodeHandler from "../src/NodeHandler.js"
import { createKey, send } from "./support/Hosts.js"

type Runtime = ManagedRuntime.ManagedRuntime<App | Petstore.Services, never>

/** A node:http server on `runtime`'s pet store, for the life of the file's tests. */
const serving = (make: () => Runtime) => {
  const served = { url: "", key: "", runtime: undefined as unknown as Runtime }
  let server: Http.Server
  beforeAll(async () => {
    served.runtime = make()
    const handler = await served.runtime.runPromise(NodeHandler.make)
    served.key = await served.runtime.runPromise(createKey())
    server = Http.createServer(handler)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    served.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
    await served.runtime.dispose()
  })
  return served
}

const requestSpan = (spans: ReadonlyArray<ReadableSpan>, requestId: string): ReadableSpan => {
  const found = spans.filter((span) => span.attributes["request.id"] === requestId)
  expect(found, `one span for request ${requestId}`).toHaveLength(1)
  return found[0]!
}

describe("docs/operations.md: the tracing example", () => {
  const root = new URL("../../../", import.meta.url)
  const page = readFileSync(new URL("docs/operations.md", root), "utf8")

  it("shows examples/tracing/traced.ts unchanged", () => {
    const snippets = [...page.matchAll(/<!-- snippet: (\S+) -->\n```ts\n([\s\S]*?)\n```/g)]
    expect(snippets.map(([, path]) => path)).toEqual(["packages/http-node/examples/tracing/traced.ts"])
    for (const [, path, code] of snippets) expect(code, path).toBe(readFileSync(new URL(path!, root), "utf8").trimEnd())
  })

  const served = serving(makeRuntime)

  it("a server span per request, named by its route, with method, route, status and request id", async () => {
    const auth = { authorization: `Bearer ${served.key}` }
    expect((await send(`${served.url}/v1/pets`, { headers: { ...auth, "x-request-id": "traced-list" } })).status).toBe(200)
    expect((await send(`${served.url}/v1/pets/1`, { headers: { ...auth, "x-request-id": "traced-get" } })).status).toBe(404)
    expect((await send(`${served.url}/v1/pets`, { headers: { "x-request-id": "traced-keyless" } })).status).toBe(401)

    const spans = exporter.getFinishedSpans()
    const list = requestSpan(spans, "traced-list")
    expect(list.name).toBe("GET /v1/pets")
    expect(list.kind).toBe(SpanKind.SERVER)
    expect(list.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/v1/pets",
      "http.response.status_code": 200,
      "request.id": "traced-list"
    })
    expect(list.status.code).not.toBe(SpanStatusCode.ERROR)
    expect(list.resource.attributes["service.name"]).toBe("petstore")

    const get = requestSpan(spans, "traced-get")
    expect(get.name).toBe("GET /v1/pets/{petId}")
    expect(get.attributes).toMatchObject({ "http.route": "/v1/pets/{petId}", "http.response.status_code": 404 })
    expect(get.status.code).not.toBe(SpanStatusCode.ERROR)

    // Refused before routing: no route, so the span is named by its method alone.
    const keyless = requestSpan(spans, "traced-keyless")
    expect(keyless.name).toBe("GET")
    expect(keyless.attributes["http.route"]).toBeUndefined()
    expect(keyless.attributes["http.response.status_code"]).toBe(401)

    expect(new Set([list, get, keyless].map((span) => span.spanContext().traceId)).size).toBe(3)
  })

  it("continues the caller's trace from a W3C traceparent; a malformed one starts a trace of its own", async () => {
    const auth = { authorization: `Bearer ${served.key}` }
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const callerSpanId = "00f067aa0ba902b7"
    const traceparent = `00-${traceId}-${callerSpanId}-01`
    expect((await send(`${served.url}/v1/pets`, { headers: { ...auth, traceparent, "x-request-id": "traced-child" } })).status).toBe(200)
    expect((await send(`${served.url}/v1/pets`, { headers: { ...auth, traceparent: "00-not-a-trace", "x-request-id": "traced-bad" } })).status).toBe(200)

    const spans = exporter.getFinishedSpans()
    const child = requestSpan(spans, "traced-child")
    expect(child.spanContext().traceId).toBe(traceId)
    expect(child.parentSpanContext?.spanId).toBe(callerSpanId)
    const bad = requestSpan(spans, "traced-bad")
    expect(bad.spanContext().traceId).not.toBe(traceId)
    expect(bad.parentSpanContext).toBeUndefined()
  })
})

describe("store calls and failures in a traced request", () => {
  const spansOf = new InMemorySpanExporter()
  // A pet store whose pet repository puts each call in a span (as the store wrapper does), and
  // breaks on pet 13.
  const repository = Layer.sync(PetRepository.PetRepository, () => {
    const memory = PetRepository.makeMemory()
    return {
      insert: (draft) => Effect.withSpan(memory.insert(draft), "PetRepository.insert"),
      listAfter: (query) => Effect.withSpan(memory.listAfter(query), "PetRepository.listAfter"),
      findById: (id) => id === 13 ? Effect.die(new Error("pet 13 is cursed")) : Effect.withSpan(memory.findById(id), "PetRepository.findById"),
      onChange: memory.onChange
    }
  })
  const layer = App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [], observe: { tracing: true } }).pipe(
    Layer.provideMerge(Petstore.layer()),
    Layer.provide(IdempotencyStore.IdempotencyStore.layerMemory),
    Layer.provide(Layer.mergeAll(
      repository,
      AccountStore.AccountStore.layerMemory,
      MessageStore.MessageStore.layerMemory,
      PageCursor.CursorSigner.random.pipe(Layer.provide(SecureRandom.SecureRandom.Live)),
      MessageProcessor.MessageProcessor.layerRecordOnly,
      SecureRandom.SecureRandom.Live
    )),
    Layer.provideMerge(NodeSdk.layer(() => ({ resource: { serviceName: "petstore" }, spanProcessor: new SimpleSpanProcessor(spansOf) }))),
    // The 500's error log is expected here.
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "None"))
  )
  const served = serving(() => ManagedRuntime.make(layer))

  it("a store call's span is a child of its request's span, in the same trace", async () => {
    const auth = { authorization: `Bearer ${served.key}` }
    expect((await send(`${served.url}/v1/pets`, { headers: { ...auth, "x-request-id": "with-store" } })).status).toBe(200)
    const spans = spansOf.getFinishedSpans()
    const request = requestSpan(spans, "with-store")
    const store = spans.filter((span) => span.name === "PetRepository.listAfter")
    expect(store).toHaveLength(1)
    expect(store[0]!.parentSpanContext?.spanId).toBe(request.spanContext().spanId)
    expect(store[0]!.spanContext().traceId).toBe(request.spanContext().traceId)
  })

  it("a 5xx answer ends its span with the error status", async () => {
    const auth = { authorization: `Bearer ${served.key}` }
    const reply = await send(`${served.url}/v1/pets/13`, { headers: { ...auth, "x-request-id": "cursed" } })
    expect(reply.status).toBe(500)
    const span = requestSpan(spansOf.getFinishedSpans(), "cursed")
    expect(span.name).toBe("GET /v1/pets/{petId}")
    expect(span.attributes["http.response.status_code"]).toBe(500)
    expect(span.status.code).toBe(SpanStatusCode.ERROR)
  })
})
