/**
 * The exchange: what the stages of one request learn, in one record the stages fill in order. Each
 * stage's part is a type of its own below; a stage is typed by the parts it reads (set by stages
 * before it) and the part it sets (see `Pipeline.Stage`), so a list of stages in the wrong order
 * does not compile. `write` and `recover` run after any stage: they read every part as possibly unset.
 */
import type { Accounts, LimitDecision } from "@petstore/core"
import type { AppRequest } from "../../AppRequest.js"
import type { ResponseHeaders } from "../../AppResponse.js"
import type * as Routes from "../routes.js"
import type { AnsweringRoute } from "./answer.js"

/** What an exchange holds from the start. */
export interface Start {
  readonly request: AppRequest
  /** Where the application is mounted (`""` at the root). */
  readonly basePath: string
}

/** Set by authenticate: the bearer token the request carried, if well-formed, and the principal of an active key. */
export interface Authenticated {
  token: string | undefined
  principal: Accounts.Principal | undefined
}

/** Set by admit, when it lets the request go on: a request with a valid key, admitted. */
export interface Admitted {
  /** The key's principal (admit goes on only for one). */
  principal: Accounts.Principal
  /**
   * The headers every answer from here on carries (the rate-limit headers). A new record per
   * request: it becomes the response's own.
   */
  admission: ResponseHeaders
  /** The account the request is charged to, for logs and metrics. */
  accountId: string
  /** The limiter's decision (counted as the account's usage; `GET /v1/usage` shows its limits). */
  decision: LimitDecision.Decision
}

/** Set by the admin gate: `Cache-Control: no-store` on every answer from here on. */
export interface Gated {
  admission: ResponseHeaders
}

/** Set by the stage that names the answering route, for logs, metrics and the operation's own headers. */
export interface Labelled {
  route: AnsweringRoute
}

/** Set by route: the answering route, and the compiled route with the path's parameters. */
export interface Routed extends Labelled {
  found: Routes.Found
}

/** Set by read body: the JSON payload, when the route takes one. */
export interface Read {
  payload: unknown
}

/** Set by decode: the operation's input (`path`, `urlParams`, `payload`). */
export interface Decoded {
  input: Record<string, unknown>
}

/** The whole record, as `write` and `recover` read it: any part may be unset, whichever stage answered. */
export interface Exchange extends Start {
  token?: string | undefined
  principal?: Accounts.Principal | undefined
  admission?: ResponseHeaders | undefined
  accountId?: string | undefined
  decision?: LimitDecision.Decision | undefined
  route?: AnsweringRoute | undefined
  found?: Routes.Found | undefined
  payload?: unknown
  input?: Record<string, unknown> | undefined
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
