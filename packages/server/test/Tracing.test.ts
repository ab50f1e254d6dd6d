/**
 * `PETSTORE_TRACING=otlp`: the real server exports a span per request over OTLP/HTTP to the
 * endpoint of the standard `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (here a collector the test runs).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { ADMIN_TOKEN, createAccount, request } from "./support/Http.js"
import { pollUntil, start, stop } from "./support/ServerProcess.js"

/** Node options that make any import of an OpenTelemetry module fail in the server process. */
const FORBID_OPENTELEMETRY = `--import ${new URL("./support/forbid-opentelemetry.mjs", import.meta.url).href}`

interface OtlpValue {
  readonly stringValue?: string
  readonly intValue?: number | string
}
interface OtlpSpan {
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: OtlpValue }>
}
interface OtlpExport {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: OtlpSpan["attributes"] }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<OtlpSpan> }>
  }>
}

const attributes = (list: OtlpSpan["attributes"]): Record<string, unknown> =>
  Object.fromEntries(list.map(({ key, value }) => [key, value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue))]))

/** An OTLP/HTTP collector that keeps what it is sent (JSON encoding). */
const collector = async () => {
  const received: Array<OtlpExport> = []
  const server = Http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport)
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const spans = () =>
    received.flatMap((batch) =>
      batch.resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) =>
          scope.spans.map((span) => ({ ...span, attributes: attributes(span.attributes), resource: attributes(resource.resource.attributes) }))
        )
      )
    )
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans,
    close: () => new Promise((resolve) => server.close(resolve))
  }
}

describe("tracing of the standalone server", () => {
  it("PETSTORE_TRACING=otlp exports a server span per request, named by its route, with its status and request id", async () => {
    const otlp = await collector()
    const server = await start({
      PETSTORE_STORE: "memory",
      PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
      PETSTORE_TRACING: "otlp",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: "50"
    })
    try {
      const account = await createAccount(server.url)
      expect((await request(`${server.url}/v1/pets`, { key: account.key, headers: { "x-request-id": "otlp-1" } })).status).toBe(200)
      const span = await pollUntil("the request's span at the collector", () => otlp.spans().find((s) => s.attributes["request.id"] === "otlp-1"), 200, 50)
      expect(span.name).toBe("GET /v1/pets")
      expect(span.kind).toBe(2) // SPAN_KIND_SERVER
      expect(span.attributes).toMatchObject({
        "http.request.method": "GET",
        "http.route": "/v1/pets",
        "http.response.status_code": 200
      })
      expect(span.resource["service.name"]).toBe("petstore")
    } finally {
      await stop(server)
      await otlp.close()
    }
  })

  it("without PETSTORE_TRACING no OpenTelemetry module is loaded (with it, the same guard stops the start)", async () => {
    const settings = { PETSTORE_STORE: "memory", PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN, NODE_OPTIONS: FORBID_OPENTELEMETRY }
    const server = await start(settings)
    try {
      const account = await createAccount(server.url)
      expect((await request(`${server.url}/v1/pets`, { key: account.key })).status).toBe(200)
    } finally {
      await stop(server)
    }
    await expect(start({ ...settings, PETSTORE_TRACING: "otlp" })).rejects.toThrow(/OpenTelemetry modules could not be loaded.*forbidden import/)
  })
})
