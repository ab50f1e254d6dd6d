import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { MessageProcessor, Petstore } from "@petstore/core"
import { App } from "@petstore/http-node"
import { Layer, ManagedRuntime, Option } from "effect"

// Spans are kept in memory here, to be read back; in production, an OTLP exporter in a BatchSpanProcessor.
export const exporter = new InMemorySpanExporter()

// The pet store with a span per request, exported through OpenTelemetry.
export const TracedPetstore = App.App.layer({
  quickstartBasePath: "/v1",
  adminToken: Option.none(),
  trustProxy: 0,
  servers: [],
  observe: { tracing: true }
}).pipe(
  Layer.provideMerge(Petstore.layerMemory()),
  Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly),
  Layer.provideMerge(NodeSdk.layer(() => ({ resource: { serviceName: "petstore" }, spanProcessor: new SimpleSpanProcessor(exporter) })))
)

export const makeRuntime = () => ManagedRuntime.make(TracedPetstore)
