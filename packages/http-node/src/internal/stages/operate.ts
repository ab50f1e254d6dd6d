/**
 * Stage operate: the operation's handler on the decoded input, in the context the application
 * gives its operations (the route's path under the mount, the principal); its reply is the answer
 * (the success status and the encoded value, with the reply's headers), its failure an Error answer.
 */
import * as Effect from "effect/Effect"

import * as ErrorResponse from "../../ErrorResponse.js"
import { answer, refusal } from "./answer.js"
import type { Decoded, Routed } from "./exchange.js"
import type { Stage } from "./pipeline.js"

export const make = <Needs, Ctx>(contextOf: (exchange: Needs, path: string) => Ctx): Stage<Needs & Routed & Decoded> => (exchange) => {
  const route = exchange.found.handler
  return Effect.match(route.handler(exchange.input, contextOf(exchange, route.path)), {
    onFailure: (error) => {
      const result = ErrorResponse.fromOperationError(error)
      return refusal(result, result.headers)
    },
    onSuccess: (reply) =>
      answer(
        route.successStatus,
        route.successStatus === 204 ? undefined : reply.encoded ?? route.encode(reply.value),
        reply.headers
      )
  })
}
