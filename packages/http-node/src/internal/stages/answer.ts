/**
 * What a stage answers with: the status, the body and the headers of the stage that answered. The
 * response is made of it by the last stage, `write`.
 */
import type { ResponseHeaders } from "../../AppResponse.js"
import type { ErrorResult } from "../../ErrorResponse.js"

/** The route that answered: for logs and metrics, and the operation's own headers. */
export interface AnsweringRoute {
  /** Method and path template (`GET /v1/pets/{petId}`). */
  readonly template: string
  /** Headers of every answer of the operation (a deprecated operation's `Deprecation`, `Sunset`, `Link`). */
  readonly headers: ResponseHeaders | undefined
}

/** A stage's answer. */
export interface Answer {
  readonly status: number
  /** The body's text (JSON unless `contentType` says otherwise); `undefined` for no body (204). */
  readonly body: string | undefined
  /** Headers of the stage that answered (`Allow`, `WWW-Authenticate`, `Location` …). */
  readonly headers: ResponseHeaders | undefined
  /** The body's media type when it is not JSON (the metrics scrape). */
  readonly contentType?: string | undefined
}

/** An answer with a JSON body (or none). */
export const answer = (status: number, body: string | undefined, headers?: ResponseHeaders): Answer => ({
  status,
  body,
  headers
})

/** The Error answer of `error`. */
export const refusal = (error: ErrorResult, headers?: ResponseHeaders): Answer => ({
  status: error.status,
  body: error.body,
  headers
})
