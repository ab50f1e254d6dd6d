/**
 * Stage read body: the JSON payload of a route that takes one (413 past the limit; 400 for a body
 * that is not JSON or not declared as JSON). A route without a payload goes on at once.
 */

import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { JSON_CONTENT_TYPE } from "../../AppResponse.js"
import * as ErrorResponse from "../../ErrorResponse.js"
import * as JsonBody from "../jsonBody.js"
import { refusal } from "./answer.js"
import type { Read, Routed, Start } from "./exchange.js"
import { answerWith, type Draft, GO_ON, type Outcome, type Stage } from "./pipeline.js"

export interface ReadBodyOptions {
  /** The largest body read, in bytes (413 beyond). */
  readonly bodyLimit: number
  /** An empty body stands for `{}` (the admin API, whose bodies are all optional objects). */
  readonly emptyBodyIsObject: boolean
}

const TOO_LARGE = refusal(ErrorResponse.STATIC.payloadTooLarge, { Connection: "close" })
const CONSUMED = refusal(ErrorResponse.STATIC.bodyConsumed)
const NOT_JSON = refusal(ErrorResponse.STATIC.unsupportedMediaType)

const isJson = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  const semi = contentType.indexOf(";")
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === JSON_CONTENT_TYPE
}

export const make = (options: ReadBodyOptions): Stage<Start & Routed, Read> => {
  const read = (exchange: Start & Draft<Read>) =>
    Effect.flatMap(exchange.request.readBody(options.bodyLimit), (body): Effect.Effect<Outcome> => {
      if (body._tag === "TooLarge") return answerWith(TOO_LARGE)
      if (body._tag === "Consumed") {
        return Effect.as(Effect.logError("a request body was read by the host server before it reached the pet store"), CONSUMED)
      }
      if (body.bytes.length === 0 && options.emptyBodyIsObject) {
        exchange.payload = {}
        return GO_ON
      }
      if (!isJson(exchange.request.header("content-type"))) return answerWith(NOT_JSON)
      const payload = JsonBody.parse(body.bytes)
      if (Result.isFailure(payload)) return answerWith(refusal(ErrorResponse.invalidJson(payload.failure)))
      exchange.payload = payload.success
      return GO_ON
    })
  return (exchange) => (exchange.found.handler.hasPayload ? read(exchange) : GO_ON)
}
