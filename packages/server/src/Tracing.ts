/**
 * Tracing for the standalone server: with `PETSTORE_TRACING=otlp`, Effect's tracer exports through
 * `@effect/opentelemetry` and the OTLP/HTTP exporter (endpoint, headers and batching from the
 * standard `OTEL_EXPORTER_OTLP_*` and `OTEL_BSP_*` variables). Off, none of these modules is loaded.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ServerConfig } from "./ServerConfig.js"

/** The service name spans are exported under. */
export const SERVICE_NAME = "petstore"

/** The tracer the configuration asks for: none, or OTLP/HTTP (its modules loaded only then). */
export const layer = (tracing: ServerConfig["tracing"]): Layer.Layer<never, Error> =>
  tracing !== "otlp" ? Layer.empty : Layer.unwrap(
    Effect.tryPromise({
      try: async () => {
        const [NodeSdk, Exporter, TraceBase] = await Promise.all([
          import("@effect/opentelemetry/NodeSdk"),
          import("@opentelemetry/exporter-trace-otlp-http"),
          import("@opentelemetry/sdk-trace-base")
        ])
        // Spans leave in batches, off the requests' path; what is pending is sent on shutdown.
        const sdk = NodeSdk.layer(() => ({
          resource: { serviceName: SERVICE_NAME },
          spanProcessor: new TraceBase.BatchSpanProcessor(new Exporter.OTLPTraceExporter())
        }))
        // The SDK's tracer is a service of the layer's output (Effect 4): provided to the server with it.
        return sdk as Layer.Layer<never>
      },
      catch: (error) => new Error(`PETSTORE_TRACING=otlp: the OpenTelemetry modules could not be loaded: ${String(error)}`)
    })
  )
