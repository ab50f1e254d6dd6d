/**
 * What the application answers, independent of the server that writes it (node:http or fetch).
 *
 * @since 1.0.0
 */
import type { LimitDecision } from "@petstore/core"

/** The headers of an answer, by lower-case name. */
export type ResponseHeaders = Record<string, string>

/** An answer as the application writes it, whatever the host. */
export interface AppResponse {
  readonly status: number
  readonly headers: ResponseHeaders
  /** JSON or HTML text; `undefined` for no body (204), or when the body is `bytes`. */
  readonly body: string | undefined
  /**
   * A large body given as bytes (a static asset, shared by every answer that sends it), with its
   * `Content-Length` among the headers. Hosts write it in chunks, each when the client has taken the
   * one before, so a client that does not read holds the server to a chunk, not the whole body.
   */
  readonly bytes?: Uint8Array | undefined
  /**
   * For logs and metrics, never written: the route that answered, as method and path template
   * (`GET /v1/pets/{petId}`), when the request was routed.
   */
  route?: string | undefined
  /**
   * For logs only, never written: the route a request refused before it was routed (401, 429) asked
   * for, when its method and path name one; metrics count such requests as unmatched.
   */
  askedRoute?: string | undefined
  /** For logs and metrics, never written: the account whose key the request carried, when it was accepted. */
  accountId?: string | undefined
  /** For usage counts, never written: the id of the key the request carried, when it was valid. */
  keyId?: string | undefined
  /** For usage counts, never written: the limiter's decision on a request with a valid key (its verdict, and the instant it is counted at). */
  decision?: LimitDecision.Decision | undefined
}

/** The content type of every JSON answer. */
export const JSON_CONTENT_TYPE = "application/json"
