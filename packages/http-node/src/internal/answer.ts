/**
 * What a stage of a request answers with, and the last stage that writes it: an `Answer` carries
 * the status, the JSON body and the headers of the stage that answered; `write` gathers the
 * headers of every stage (the admission's, the operation's, the answer's own) and merges them
 * once into the response.
 *
 * @since 1.0.0
 */
import { type AppResponse, JSON_CONTENT_TYPE, type ResponseHeaders } from "../AppResponse.js"
import type { ErrorResult } from "../ErrorResponse.js"

/** The route that answered: for logs and metrics, and the operation's own headers. */
export interface AnsweringRoute {
  /** Method and path template (`GET /v1/pets/{petId}`). */
  readonly template: string
  /** Headers of every answer of the operation (a deprecated operation's `Deprecation`, `Sunset`, `Link`). */
  readonly headers: ResponseHeaders | undefined
}

/** A stage's answer; each is a new object, labelled with its route once routed. */
export interface Answer {
  readonly status: number
  /** JSON text; `undefined` for no body (204). */
  readonly body: string | undefined
  /** Headers of the stage that answered (`Allow`, `WWW-Authenticate`, `Location` …). */
  readonly headers: ResponseHeaders | undefined
  /** The route that answered, set by the routing stage. */
  route?: AnsweringRoute | undefined
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

/**
 * The last stage: the response to `answer`. Its headers are, in this order, the admission's
 * (rate-limit headers, `Cache-Control` of the admin API), the operation's, the answer's own and
 * `Content-Type`: each stage's headers are merged here and nowhere else. `admission` becomes the
 * response's own header record (the observer adds `X-Request-Id` to it), so it must be a new record
 * per request, never a shared constant.
 */
export const write = (answer: Answer, admission?: ResponseHeaders | undefined, accountId?: string | undefined): AppResponse => {
  const headers: ResponseHeaders = admission ?? {}
  if (answer.route?.headers !== undefined) Object.assign(headers, answer.route.headers)
  if (answer.headers !== undefined) Object.assign(headers, answer.headers)
  if (answer.body !== undefined) headers["Content-Type"] = JSON_CONTENT_TYPE
  return { status: answer.status, headers, body: answer.body, route: answer.route?.template, accountId }
}
