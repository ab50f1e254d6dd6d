/**
 * The Prometheus text of a server's `Metrics`, through prom-client: its registry writes the
 * exposition format (escaping, `_bucket`/`_sum`/`_count`, `le`) and adds Node's process metrics.
 * Our metrics are registered as collectors that read the plain cells when scraped, so serving
 * costs prom-client nothing. prom-client is imported at the first scrape: a server nobody scrapes,
 * or with metrics off, never loads it nor the @opentelemetry/api it requires (what they weigh in
 * resident memory: docs/decisions.md, "When is prom-client loaded?").
 */
import * as Effect from "effect/Effect"
import type * as PromClient from "prom-client"
import type { HistogramCell, Metrics, Verdict } from "./Metrics.js"

/** The content type of the exposition format served at `/metrics`. */
export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

/** Renders the current metrics as Prometheus text. */
export interface Exporter {
  readonly scrape: Effect.Effect<string>
}

type Labels = Record<string, string | number>
type Sample = { value: number; labels: Labels; metricName?: string }

const VERDICTS: ReadonlyArray<Verdict> = [
  "allowed",
  "rate_limited",
  "daily_quota_exceeded",
  "key_banned",
  "unauthenticated",
  "unauthenticated_limited"
]

/** The samples of one histogram cell: cumulative buckets, `+Inf`, sum and count. */
const histogramSamples = (name: string, cell: HistogramCell, labels: Labels): Array<Sample> => {
  const samples: Array<Sample> = []
  let cumulative = 0
  for (let i = 0; i < cell.bounds.length; i++) {
    cumulative += cell.counts[i]!
    samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: cell.bounds[i]! }, value: cumulative })
  }
  samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: "+Inf" }, value: cell.count })
  samples.push({ metricName: `${name}_sum`, labels, value: cell.sum })
  samples.push({ metricName: `${name}_count`, labels, value: cell.count })
  return samples
}

/** A metric whose samples are computed when scraped, in the shape prom-client's registry writes. */
const collector = (
  name: string,
  help: string,
  type: "counter" | "gauge" | "histogram",
  values: () => Array<Sample> | Promise<Array<Sample>>
) => ({
  name,
  help,
  type,
  get: async () => ({ name, help, type, values: await values(), aggregator: "sum" as const })
})

/**
 * Node's process metrics, collected once per process: `collectDefaultMetrics` starts an event-loop
 * delay monitor and a GC observer that are never stopped, so every exporter of the process (an
 * embedder may build several) shares this one registry rather than starting its own.
 */
let processRegistry: PromClient.Registry | undefined
const processMetrics = (prom: typeof PromClient): PromClient.Registry => {
  if (processRegistry === undefined) {
    const registry = new prom.Registry()
    // prom-client counts CPU from the moment it is registered (the first scrape); the CPU used before
    // it is added once, so `process_cpu_*_seconds_total` count from the start of the process.
    const before = process.cpuUsage()
    prom.collectDefaultMetrics({ register: registry })
    const add = (name: string, micros: number) => (registry.getSingleMetric(name) as PromClient.Counter | undefined)?.inc(micros / 1e6)
    add("process_cpu_user_seconds_total", before.user)
    add("process_cpu_system_seconds_total", before.system)
    add("process_cpu_seconds_total", before.user + before.system)
    processRegistry = registry
  }
  return processRegistry
}

/**
 * The exporter of `metrics`, with Node's default process metrics. Its registry is made at the first
 * scrape (Node's process metrics such as event-loop delay and GC are observed from then on).
 */
export const make = (metrics: Metrics): Effect.Effect<Exporter> =>
  Effect.sync(() => {
    let registry: Promise<PromClient.Registry> | undefined
    return {
      scrape: Effect.promise(async () => {
        // A first scrape that fails (prom-client missing, say) is not kept: the next one tries again.
        registry ??= import("prom-client").then((prom) => makeRegistry(prom, metrics)).catch((error) => {
          registry = undefined
          throw error
        })
        return (await registry).metrics()
      })
    }
  })

const makeRegistry = (prom: typeof PromClient, metrics: Metrics): PromClient.Registry => {
  const registry = prom.Registry.merge([processMetrics(prom)])
  const register = (metric: ReturnType<typeof collector>) => registry.registerMetric(metric as unknown as PromClient.Metric)

  register(collector("petstore_http_requests_total", "HTTP requests answered, by route template and status.", "counter", () =>
    [...metrics.routes].flatMap(([route, cells]) =>
      [...cells.statuses].map(([status, value]) => ({ labels: { route, status }, value }))
    )))
  register(collector(
    "petstore_http_request_duration_seconds",
    "Time from a request's arrival at the application to its answer, by route template.",
    "histogram",
    () => [...metrics.routes].flatMap(([route, cells]) => histogramSamples("petstore_http_request_duration_seconds", cells.duration, { route }))
  ))
  register(collector("petstore_rate_limit_decisions_total", "Rate limiter decisions, by verdict.", "counter", () =>
    VERDICTS.map((verdict) => ({ labels: { verdict }, value: metrics.verdicts.get(verdict) ?? 0 }))))
  register(collector("petstore_message_queue_depth", "Messages not yet delivered or failed, by state (read from the message store).", "gauge", async () => {
    if (metrics.queueDepth === undefined) return []
    const counts = await Effect.runPromise(Effect.result(metrics.queueDepth))
    // A store that cannot be reached has no depth to report; its errors are counted on their own.
    if (counts._tag === "Failure") return []
    return [
      { labels: { state: "queued" }, value: counts.success.queued },
      { labels: { state: "processing" }, value: counts.success.processing }
    ]
  }))
  register(collector("petstore_message_deliveries_total", "Message processing attempts, by outcome.", "counter", () =>
    (["delivered", "retried", "failed"] as const).map((outcome) => ({ labels: { outcome }, value: metrics.deliveries.get(outcome) ?? 0 }))))
  register(collector(
    "petstore_store_operation_duration_seconds",
    "Time of store calls, by store and operation.",
    "histogram",
    () =>
      metrics.storeOperations.flatMap((cells) =>
        histogramSamples("petstore_store_operation_duration_seconds", cells.duration, { store: cells.store, operation: cells.operation })
      )
  ))
  register(collector("petstore_store_errors_total", "Store calls that failed (store unreachable or a defect), by store and operation.", "counter", () =>
    metrics.storeOperations.map((cells) => ({ labels: { store: cells.store, operation: cells.operation }, value: cells.errors }))))
  register(collector(
    "petstore_group_commit_batch_size",
    "Writes per group-commit batch (one SQLite transaction, or one PostgreSQL insert statement).",
    "histogram",
    () => histogramSamples("petstore_group_commit_batch_size", metrics.batches, {})
  ))
  return registry
}
