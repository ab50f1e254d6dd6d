/**
 * `PUT /admin/v1/accounts/{accountId}/webhook`: sets the account's webhook endpoint (a new signing
 * secret, shown only in this answer).
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as Effect from "effect/Effect"
import * as Operation from "../operation.js"
import { AccountIdPath, adminErrors, error } from "./adminEndpoint.js"
import { IssuedWebhook, issuedWebhook, WebhookUrl, withEndpointOf } from "./webhooks.js"

export const endpoint = HttpApiEndpoint.put("setWebhook", "/accounts/:accountId/webhook", {
  params: AccountIdPath,
  payload: WebhookUrl,
  success: IssuedWebhook,
  error: [error(400), error(404), ...adminErrors]
})

export const setWebhook = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(withEndpointOf, (webhooks) => ({ path, payload }) =>
    webhooks(path.accountId, (w) => Effect.map(w.setEndpoint(path.accountId, payload.url), issuedWebhook)))
})
