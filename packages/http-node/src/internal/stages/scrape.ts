/**
 * Stage scrape, the last of `GET /metrics` (behind the admin gate): the metrics in the exporter's
 * text format.
 */
import * as Effect from "effect/Effect"

import type { AnsweringRoute } from "./answer.js"
import type { Gated, Labelled, Start } from "./exchange.js"
import type { Stage } from "./pipeline.js"

export interface ScrapeOptions {
  readonly scrape: Effect.Effect<string>
  readonly contentType: string
}

const METRICS_ROUTE: AnsweringRoute = { template: "GET /metrics", headers: undefined }

export const make = ({ contentType, scrape }: ScrapeOptions): Stage<Start & Gated, Labelled> => (exchange) => {
  exchange.route = METRICS_ROUTE
  return Effect.map(scrape, (body) => ({ status: 200, body, headers: undefined, contentType }))
}
