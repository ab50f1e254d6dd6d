/**
 * Stage authenticate: the principal of the request's API key (a well-formed `Bearer` token of an
 * active key), or none. It never answers: a request without a valid key is refused by `admit`,
 * which counts it against its address first.
 */
import * as Effect from "effect/Effect"
import { type Accounts } from "@petstore/core"
import * as Option from "effect/Option"
import { bearerToken } from "../credentials.js"
import type { Authenticated, Start } from "./exchange.js"
import { GO_ON, type Stage } from "./pipeline.js"

export const make = (accounts: Accounts.Accounts["Service"]): Stage<Start, Authenticated> => (exchange) => {
  const token = bearerToken(exchange.request.header("authorization"))
  exchange.token = token
  if (token === undefined) return GO_ON
  return Effect.flatMap(accounts.verify(token), (principal) => {
    exchange.principal = Option.getOrUndefined(principal)
    return GO_ON
  })
}
