/**
 * How the composition root puts metrics and store spans in: which `Metrics` a configuration
 * measures into, the stores wrapped (durations, errors, spans, delivery outcomes, queue depth),
 * the limiter's verdicts counted, the application metered, and `/metrics` served.
 *
 * @since 1.0.0
 */
import { MessageStore, RateLimiter, Layers } from "@petstore/core"
import type * as App from "@petstore/http-node/App"
import type * as Server from "@petstore/http-node/Server"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ServerConfig } from "./ServerConfig.js"
import { countDeliveries, countVerdicts } from "./CountedOutcomes.js"
import * as InstrumentedStores from "./InstrumentedStores.js"
import * as MetricsListener from "./MetricsListener.js"
import { Metrics } from "./Metrics.js"
import * as PrometheusExporter from "./PrometheusExporter.js"

// One `Metrics` per configuration, so the stores and the application built for it measure into the same cells.
const byConfig = new WeakMap<ServerConfig, Metrics>()

/** The metrics of a server with `config`; none when `PETSTORE_METRICS=false`. */
export const metricsOf = (config: ServerConfig): Metrics | undefined => {
  if (config.metrics === false) return undefined
  let metrics = byConfig.get(config)
  if (metrics === undefined) {
    metrics = new Metrics()
    byConfig.set(config, metrics)
  }
  return metrics
}

/**
 * `stores` with every store port measured (and traced when `config.tracing`), message outcomes
 * counted and the queue's depth read from its message store.
 */
export const observeStores = <A, E, R>(config: ServerConfig, stores: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> => {
  const metrics = metricsOf(config)
  const tracing = config.tracing === "otlp"
  if (metrics === undefined && !tracing) return stores
  return Layers.map(stores, (context) => {
    const instrumented = InstrumentedStores.instrumentContext(context, { metrics, tracing })
    if (metrics === undefined) return instrumented
    const messages = Context.getOption(instrumented as Context.Context<unknown>, MessageStore.MessageStore)
    if (Option.isNone(messages)) return instrumented
    metrics.queueDepth = Context.getUnsafe(context as Context.Context<MessageStore.MessageStore>, MessageStore.MessageStore).pendingCounts
    return Context.add(instrumented, MessageStore.MessageStore, countDeliveries(messages.value, metrics)) as Context.Context<A>
  })
}

/** The options of the group-commit batchers: each batch's size measured. */
export const batchOptions = (config: ServerConfig): { readonly onBatch?: (writes: number) => void } => {
  const metrics = metricsOf(config)
  return metrics === undefined ? {} : { onBatch: metrics.batch }
}

/** `services` with the limiter's verdicts counted. */
export const observeServices = <A, E, R>(config: ServerConfig, services: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> => {
  const metrics = metricsOf(config)
  if (metrics === undefined) return services
  return Layers.map(services, (context) => {
    const limiter = Context.getOption(context as Context.Context<unknown>, RateLimiter.RateLimiter)
    return Option.isNone(limiter)
      ? context
      : Context.add(context, RateLimiter.RateLimiter, countVerdicts(limiter.value, metrics)) as Context.Context<A>
  })
}

/**
 * The application, built by `make` with the `/metrics` options when metrics are on: `/metrics`
 * served and every answer counted and timed (the application's `record` hook). The exporter (prom-client) is loaded here, only when metrics are on.
 */
export const appLayer = <E, R>(
  config: ServerConfig,
  make: (metrics: App.AppOptions["metrics"]) => Layer.Layer<App.App, E, R>
): Layer.Layer<App.App, E | Server.ListenError, R> => {
  const metrics = metricsOf(config)
  if (metrics === undefined) return make(undefined)
  return Layer.unwrap(
    Effect.map(PrometheusExporter.make(metrics), (exporter) => {
      const app = make({
        scrape: exporter.scrape,
        contentType: PrometheusExporter.CONTENT_TYPE,
        record: (response, seconds) => metrics.request(response.route, response.status, seconds)
      })
      return config.metricsAddress === undefined
        ? app
        : Layer.merge(app, MetricsListener.layer(config.metricsAddress, exporter.scrape, PrometheusExporter.CONTENT_TYPE))
    })
  )
}
