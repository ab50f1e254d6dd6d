/**
 * Stage decode: the operation's input from the path's parameters, the query and the payload,
 * decoded with the endpoint's schemas; the first that fails is answered 400 with what was wrong.
 */
import * as Result from "effect/Result"
import * as ErrorResponse from "../../ErrorResponse.js"
import { refusal } from "./answer.js"
import type { Decoded, Read, Routed, Start } from "./exchange.js"
import { answerWith, GO_ON, type Stage } from "./pipeline.js"

const invalid = (description: string) => answerWith(refusal(ErrorResponse.invalidRequest(description)))

export const decode: Stage<Start & Routed & Read, Decoded> = (exchange) => {
  const found = exchange.found
  const route = found.handler
  const input: Record<string, unknown> = {}
  if (route.decodePath !== undefined) {
    const path = route.decodePath(found.params)
    if (Result.isFailure(path)) return invalid(path.failure.message)
    input.path = path.success
  }
  if (route.decodeQuery !== undefined) {
    const query = route.decodeQuery(found.searchParams)
    if (Result.isFailure(query)) return invalid(query.failure.message)
    input.urlParams = query.success
  }
  if (route.decodePayload !== undefined) {
    const payload = route.decodePayload(exchange.payload)
    if (Result.isFailure(payload)) return invalid(payload.failure.message)
    input.payload = payload.success
  }
  exchange.input = input
  return GO_ON
}
