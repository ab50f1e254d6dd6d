/**
 * Stage admin gate, first of the admin API's stages (and of `/metrics`): the gate's refusal (404
 * without an admin token, 401, 429), or "go on" with `Cache-Control: no-store` on every answer
 * from here on (what the admin API answers is never cached).
 */
import type * as Clock from "effect/Clock"
import type { AppRequest } from "../../AppRequest.js"
import type { Answer } from "./answer.js"
import type { Gated, Start } from "./exchange.js"
import { answerWith, GO_ON, type Stage } from "./pipeline.js"

export const make = (gate: (request: AppRequest, now: number) => Answer | undefined, clock: Clock.Clock): Stage<Start, Gated> =>
(exchange) => {
  const refused = gate(exchange.request, clock.currentTimeMillisUnsafe())
  if (refused !== undefined) return answerWith(refused)
  exchange.admission = { "Cache-Control": "no-store" }
  return GO_ON
}
