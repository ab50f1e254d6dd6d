/** `GET /admin/v1/messages/{messageId}/attempts`: every delivery attempt of a message, in order. */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { Errors } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Operation from "../operation.js"
import { adminErrors, error, MessageIdPath } from "./adminEndpoint.js"
import { withWebhooks } from "./webhooks.js"

/** One attempt to deliver a message to a webhook endpoint. */
export const WebhookAttempt = Schema.Struct({
  attempt: Schema.Int,
  url: Schema.String,
  startedAt: Schema.String,
  durationMs: Schema.Int,
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String)
})

export const endpoint = HttpApiEndpoint.get("listMessageAttempts", "/messages/:messageId/attempts", {
  params: MessageIdPath,
  success: Schema.Array(WebhookAttempt),
  error: [error(404), ...adminErrors]
})

export const listMessageAttempts = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(withWebhooks, (webhooks) => ({ path }) =>
    webhooks(() => new Errors.MessageNotFound({ id: path.messageId }), (w) =>
      Effect.map(w.attempts(path.messageId), (attempts) => ({
        value: attempts.map((a) => ({
          attempt: a.attempt,
          url: a.url,
          startedAt: new Date(a.startedAt).toISOString(),
          durationMs: a.durationMillis,
          statusCode: a.statusCode,
          error: a.error
        }))
      }))))
})
