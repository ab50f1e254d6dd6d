/**
 * `POST /v1/messages` (experimental): queues a message, stored before the answer; `202` with it and
 * its `Location`.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as OpenApi from "effect/http-api/OpenApi"
import { Idempotency, Message, MessageQueue } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { invalid, ResponseHeaders, tooLarge, commonErrors } from "./endpoint.js"
import * as IdempotencyKeyHeader from "./idempotencyKey.js"
import * as Operation from "./operation.js"

const DESCRIPTION = "**Experimental.** Queues a message: it is stored before the answer (`202`, status `queued`, " +
  "with its `Location`) and processed at least once: `queued → processing → delivered`, or `failed` after " +
  "5 attempts with exponential backoff. The base path of the message operations is configurable " +
  "(default `/v1`)."

export const endpoint = HttpApiEndpoint.post("createMessage", "/messages", {
    headers: IdempotencyKeyHeader.headers,
    payload: Message.NewMessage,
    // The same fields, described as this answer (the document refers to the Message component).
    success: Schema.Struct(Message.Message.fields).annotate({ description: "Accepted and queued (or the replay of an earlier request's answer)." }).pipe(HttpApiSchema.status(202)),
    error: [invalid, IdempotencyKeyHeader.inUse, tooLarge, IdempotencyKeyHeader.reused, ...commonErrors]
  })
  .annotate(OpenApi.Identifier, "createMessage")
  .annotate(OpenApi.Summary, "Submit a message")
  .annotate(OpenApi.Description, DESCRIPTION)
  .annotate(OpenApi.Override, { "x-stability": "experimental" })
  .annotate(ResponseHeaders, ["Location", "Idempotent-Replayed"])

export const createMessage = Operation.make({
  endpoint,
  handler: Effect.map(Effect.all([MessageQueue.MessageQueue, Idempotency.Idempotency]), ([queue, idempotency]) => ({ payload }, context) =>
    IdempotencyKeyHeader.create(
      context,
      (key) => idempotency.submitMessage(context.principal.accountId, key, payload.message),
      () => queue.submit(context.principal.accountId, payload.message),
      (message) => `${context.path}/${message.id}`
    ))
})
