/**
 * What the server measures, kept in plain numbers while it serves: a request, a limiter verdict or
 * a store call adds to a counter or a histogram cell found once (by a Map lookup or when a wrapper
 * was built), with no allocation and no library call on the hot path. The Prometheus exporter
 * (`PrometheusExporter`, loaded only when metrics are on) reads these cells when scraped.
 *
 * @since 1.0.0
 */
import type { MessageStore } from "@petstore/core"
import type * as Effect from "effect/Effect"

/** Request and store-call latency buckets, in seconds: from 100 µs (an answer from memory) to 10 s. */
export const LATENCY_BUCKETS: ReadonlyArray<number> = [
  0.0001,
  0.00025,
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  10
]

/** Group-commit batch sizes (writes per transaction or statement), up to the largest batch allowed. */
export const BATCH_BUCKETS: ReadonlyArray<number> = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]

/** The label of a request that no route answered (an unknown path, a refused key, an unread request). */
export const UNMATCHED_ROUTE = "unmatched"

/** One histogram's counts for one set of label values: per bucket (not cumulative), then past the last. */
export class HistogramCell {
  readonly counts: Float64Array
  sum = 0
  count = 0
  constructor(readonly bounds: ReadonlyArray<number>) {
    this.counts = new Float64Array(bounds.length + 1)
  }
  observe(value: number): void {
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && value > bounds[i]!) i++
    this.counts[i]!++
    this.sum += value
    this.count++
  }
}

/** One route's requests: a count per status and the latency histogram. */
export class RouteCells {
  readonly statuses = new Map<number, number>()
  readonly duration = new HistogramCell(LATENCY_BUCKETS)
}

/** One store operation's latency histogram and error count. */
export class StoreOperationCells {
  errors = 0
  readonly duration = new HistogramCell(LATENCY_BUCKETS)
  constructor(readonly store: string, readonly operation: string) {}
}

/** The verdicts counted by `petstore_rate_limit_decisions_total`. */
export type Verdict =
  | "allowed"
  | "rate_limited"
  | "daily_quota_exceeded"
  | "key_banned"
  | "unauthenticated"
  | "unauthenticated_limited"

/** What a message's processing attempt ended as. */
export type DeliveryOutcome = "delivered" | "retried" | "failed"

/** Every measurement of one server. */
export class Metrics {
  readonly routes = new Map<string, RouteCells>()
  readonly verdicts = new Map<Verdict, number>()
  readonly deliveries = new Map<DeliveryOutcome, number>()
  readonly storeOperations: Array<StoreOperationCells> = []
  readonly batches = new HistogramCell(BATCH_BUCKETS)
  /** The message store's pending counts, read when scraped; set when the services are built. */
  queueDepth: Effect.Effect<MessageStore.PendingCounts, unknown> | undefined = undefined

  /** Counts a request answered by `route` (a template, or none) with `status` after `seconds`. */
  request(route: string | undefined, status: number, seconds: number): void {
    const label = route ?? UNMATCHED_ROUTE
    let cells = this.routes.get(label)
    if (cells === undefined) {
      cells = new RouteCells()
      this.routes.set(label, cells)
    }
    cells.statuses.set(status, (cells.statuses.get(status) ?? 0) + 1)
    cells.duration.observe(seconds)
  }

  verdict(verdict: Verdict): void {
    this.verdicts.set(verdict, (this.verdicts.get(verdict) ?? 0) + 1)
  }

  delivery(outcome: DeliveryOutcome): void {
    this.deliveries.set(outcome, (this.deliveries.get(outcome) ?? 0) + 1)
  }

  /** The cells of one store operation, made once when its wrapper is built. */
  storeOperation(store: string, operation: string): StoreOperationCells {
    const found = this.storeOperations.find((c) => c.store === store && c.operation === operation)
    if (found !== undefined) return found
    const cells = new StoreOperationCells(store, operation)
    this.storeOperations.push(cells)
    return cells
  }

  /** Counts a group-commit batch of `writes` writes (an option callback of the SQLite and PostgreSQL stores). */
  readonly batch = (writes: number): void => this.batches.observe(writes)
}
