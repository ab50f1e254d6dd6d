/**
 * One request while it is being answered: what each stage learned of it (the key's principal, the
 * admission's headers, the route, the decoded input), written by the stage that learns it and read
 * by the stages after it. One record per request, made when it arrives.
 *
 * @since 1.0.0
 */
import type { Accounts, LimitDecision } from "@petstore/core"
import type { AppRequest } from "../../AppRequest.js"
import type { ResponseHeaders } from "../../AppResponse.js"
import type * as Routes from "../routes.js"
import type { AnsweringRoute } from "./answer.js"

export interface Exchange {
  readonly request: AppRequest
  /** Where the application is mounted (`""` at the root). */
  readonly basePath: string
  /** authenticate: the bearer token the request carried, if well-formed. */
  token: string | undefined
  /** authenticate: the principal of an active key. */
  principal: Accounts.Principal | undefined
  /**
   * admit (or the admin gate): the headers every answer from here on carries (rate-limit headers,
   * the admin API's `Cache-Control`). A new record per request: it becomes the response's own.
   */
  admission: ResponseHeaders | undefined
  /** admit: the account the request is charged to, for logs and metrics. */
  accountId: string | undefined
  /** admit: the limiter's decision on a request with a valid key (counted as the account's usage; `GET /v1/usage` shows its limits). */
  decision: LimitDecision.Decision | undefined
  /** route: the route that answers, for logs, metrics and the operation's own headers. */
  route: AnsweringRoute | undefined
  /** route: the compiled route and the path's parameters. */
  found: Routes.Found | undefined
  /** read body: the JSON payload, when the route takes one. */
  payload: unknown
  /** decode: the operation's input (`path`, `urlParams`, `payload`). */
  input: Record<string, unknown> | undefined
}

/** A new exchange for `request`, nothing learned yet. */
export const make = (request: AppRequest): Exchange => ({
  request,
  basePath: request.basePath ?? "",
  token: undefined,
  principal: undefined,
  admission: undefined,
  accountId: undefined,
  decision: undefined,
  route: undefined,
  found: undefined,
  payload: undefined,
  input: undefined
})
