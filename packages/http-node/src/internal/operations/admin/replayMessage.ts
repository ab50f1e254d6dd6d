/** `POST /admin/v1/messages/{messageId}/replay`: queues the message again; `202` with it. */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import { Errors, Message } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Operation from "../operation.js"
import { adminErrors, error, MessageIdPath } from "./adminEndpoint.js"
import { withWebhooks } from "./webhooks.js"

export const endpoint = HttpApiEndpoint.post("replayMessage", "/messages/:messageId/replay", {
  params: MessageIdPath,
  success: Message.Message.pipe(HttpApiSchema.status(202)),
  error: [error(404), ...adminErrors]
})

export const replayMessage = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(withWebhooks, (webhooks) => ({ path }) =>
    webhooks(() => new Errors.MessageNotFound({ id: path.messageId }), (w) => Effect.map(w.replay(path.messageId), (value) => ({ value }))))
})
