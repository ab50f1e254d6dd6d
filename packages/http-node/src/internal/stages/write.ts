/**
 * After the stages: the response to the answer one of them gave. Its headers are, in this order, the admission's
 * (rate-limit headers, the admin API's `Cache-Control`), the operation's own, the answer's own and
 * `Content-Type`: each stage's headers are merged here, once, and nowhere else.
 */
import { type AppResponse, JSON_CONTENT_TYPE, type ResponseHeaders } from "../../AppResponse.js"
import type { Answer } from "./answer.js"
import type { Exchange } from "./exchange.js"

/**
 * The response to `answer` of `exchange`. The admission's record becomes the response's own header
 * record (the observer adds `X-Request-Id` to it): it is a new record per request, never shared.
 */
export const write = (exchange: Exchange, answer: Answer): AppResponse => {
  const headers: ResponseHeaders = exchange.admission ?? {}
  const route = exchange.route
  if (route?.headers !== undefined) Object.assign(headers, route.headers)
  if (answer.headers !== undefined) Object.assign(headers, answer.headers)
  if (answer.body !== undefined) headers["Content-Type"] = answer.contentType ?? JSON_CONTENT_TYPE
  return {
    status: answer.status,
    headers,
    body: answer.body,
    route: route?.template,
    accountId: exchange.accountId,
    keyId: exchange.principal?.keyId,
    decision: exchange.decision
  }
}
