/** `GET /admin/v1/accounts/{accountId}/webhook`: the account's webhook endpoint and its state. */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as Effect from "effect/Effect"
import * as Operation from "../operation.js"
import { AccountIdPath, adminErrors, error } from "./adminEndpoint.js"
import { WebhookEndpoint, endpointView, withEndpointOf } from "./webhooks.js"

export const endpoint = HttpApiEndpoint.get("getWebhook", "/accounts/:accountId/webhook", {
  params: AccountIdPath,
  success: WebhookEndpoint,
  error: [error(404), ...adminErrors]
})

export const getWebhook = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(withEndpointOf, (webhooks) => ({ path }) =>
    webhooks(path.accountId, (w) => Effect.map(w.getEndpoint(path.accountId), (e) => ({ value: endpointView(e) }))))
})
