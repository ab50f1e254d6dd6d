/**
 * Stage admin gate, first of the admin API's stages (and of `/metrics`): the gate's refusal (404
 * without an admin token, 403, 401, 429), or "go on" with `Cache-Control: no-store` on every answer
 * from here on (what the admin API answers is never cached).
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { AdminGate } from "../adminGate.js"
import type { Gated, Start } from "./exchange.js"
import type { Stage } from "./pipeline.js"

export const make = (gate: AdminGate, clock: Clock.Clock): Stage<Start, Gated> => (exchange) =>
  Effect.map(gate.refuse(exchange.request, clock.currentTimeMillisUnsafe()), (refused) => {
    if (refused !== undefined) return refused
    exchange.admission = { "Cache-Control": "no-store" }
    return undefined
  })
