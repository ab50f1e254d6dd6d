/**
 * `GET /admin/v1/messages/{messageId}`: one message, whichever account it is of, as an account's
 * messages listing answers its items, with the account it belongs to.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { Errors } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Operation from "../operation.js"
import { adminErrors, error, MessageIdPath } from "./adminEndpoint.js"
import { adminMessageOf, AdminMessage } from "./listAccountMessages.js"
import { withWebhooks } from "./webhooks.js"

/** A message as the admin reads it alone: the listing's item and the account it belongs to. */
export const AdminAccountMessage = Schema.Struct({
  ...AdminMessage.fields,
  accountId: Schema.String.annotate({ description: "The account that submitted it." })
}).annotate({ identifier: "AdminAccountMessage" })

export const endpoint = HttpApiEndpoint.get("getAdminMessage", "/messages/:messageId", {
  params: MessageIdPath,
  success: AdminAccountMessage,
  error: [error(404), ...adminErrors]
})

export const getAdminMessage = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(withWebhooks, (webhooks) => ({ path }) =>
    webhooks(() => new Errors.MessageNotFound({ id: path.messageId }), (w) =>
      Effect.map(w.message(path.messageId), (m) => ({ value: { ...adminMessageOf(m), accountId: m.accountId } }))))
})
