/** `DELETE /admin/v1/accounts/{accountId}/webhook`: removes the account's webhook endpoint; `204`. */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Operation from "../operation.js"
import { AccountIdPath, adminErrors, error } from "./adminEndpoint.js"
import { withEndpointOf } from "./webhooks.js"

export const endpoint = HttpApiEndpoint.delete("deleteWebhook", "/accounts/:accountId/webhook", {
  params: AccountIdPath,
  success: Schema.Void.pipe(HttpApiSchema.status(204)),
  error: [error(404), ...adminErrors]
})

export const deleteWebhook = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(withEndpointOf, (webhooks) => ({ path }) =>
    webhooks(path.accountId, (w) => Effect.as(w.removeEndpoint(path.accountId), { value: undefined })))
})
