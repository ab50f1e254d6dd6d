/**
 * `GET /v1/messages/{id}` (experimental): a message's current state, to the account that submitted it.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as OpenApi from "effect/http-api/OpenApi"
import { Message, MessageQueue } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { notFound, commonErrors } from "./endpoint.js"
import * as Operation from "./operation.js"

const DESCRIPTION = "**Experimental.** The message's current state. Only the account that submitted it can read " +
  "it: another account's message id is `404 not_found`."

export const endpoint = HttpApiEndpoint.get("getMessage", "/messages/:id", {
    params: Schema.Struct({ id: Schema.String.annotate({ description: "Identifier of the message (its `id`)." }) }),
    success: Message.Message,
    error: [notFound("message"), ...commonErrors]
  })
  .annotate(OpenApi.Identifier, "getMessage")
  .annotate(OpenApi.Summary, "Read a message's current state")
  .annotate(OpenApi.Description, DESCRIPTION)
  .annotate(OpenApi.Override, { "x-stability": "experimental" })

export const getMessage = Operation.make({
  endpoint,
  handler: Effect.map(MessageQueue.MessageQueue, (queue) => ({ path }, { principal }) =>
    Effect.map(queue.get(principal.accountId, path.id), (message) => ({ value: message })))
})
