/**
 * `GET /admin/v1/accounts/{accountId}/messages`: the account's messages, a page at a time, filtered
 * by status; the next page named by a `Link` (as `GET /v1/pets` names it).
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { Errors, Message, type MessageStore } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { integer1To100, ResponseHeaders } from "../endpoint.js"
import { nextLink } from "../listPets.js"
import * as Operation from "../operation.js"
import { AccountIdPath, ADMIN_PREFIX, adminErrors, error } from "./adminEndpoint.js"
import { withWebhooks } from "./webhooks.js"

/** The query of an account's messages: a status, a page size and where the page starts. */
export const AccountMessagesParams = Schema.Struct({
  status: Schema.optionalKey(Message.MessageStatus.annotate({ description: "Only the messages in this status (`failed` for those to look into or replay)." })),
  limit: Schema.optionalKey(
    integer1To100
      .annotate({ description: "Messages a page at most (1..100, default 20).", default: 20 })
  ),
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "Opaque cursor from the `Link` header of the previous page." }))
})

/** A message as the admin sees it: the account's view, with its times and its last error. */
export const AdminMessage = Schema.Struct({
  id: Schema.String,
  status: Message.MessageStatus,
  message: Schema.String,
  attempts: Schema.Int,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  lastError: Schema.NullOr(Schema.String).annotate({ description: "The account's view of the last failure; the attempts have the full text." })
})

/** The admin's view of a stored message. */
export const adminMessageOf = (m: MessageStore.StoredMessage): typeof AdminMessage.Type => ({
  id: m.id,
  status: m.status,
  message: m.message,
  attempts: m.attempts,
  createdAt: new Date(m.createdAt).toISOString(),
  updatedAt: new Date(m.updatedAt).toISOString(),
  lastError: m.lastError
})

export const endpoint = HttpApiEndpoint.get("listAccountMessages", "/accounts/:accountId/messages", {
  params: AccountIdPath,
  query: AccountMessagesParams,
  success: Schema.Array(AdminMessage),
  error: [error(400), error(404), ...adminErrors]
}).annotate(ResponseHeaders, ["Link"])

export const listAccountMessages = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(withWebhooks, (webhooks) => ({ path, urlParams }, { basePath }) =>
    webhooks(() => new Errors.AccountNotFound({ id: path.accountId }), (w) => {
      const limit = urlParams.limit ?? 20
      return Effect.map(w.listMessages(path.accountId, { status: urlParams.status, limit, cursor: urlParams.cursor }), (page) => ({
        value: page.messages.map(adminMessageOf),
        ...(page.next === undefined ? {} : {
          headers: { Link: nextLink(`${basePath}${ADMIN_PREFIX}/accounts/${path.accountId}/messages`, limit, urlParams.status, page.next) }
        })
      }))
    }))
})
