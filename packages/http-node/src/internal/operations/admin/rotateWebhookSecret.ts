/**
 * `POST /admin/v1/accounts/{accountId}/webhook/rotate-secret`: a new signing secret (shown only in
 * this answer); the previous one still signs for `graceSeconds`.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Operation from "../operation.js"
import { AccountIdPath, adminErrors, error } from "./adminEndpoint.js"
import { IssuedWebhook, issuedWebhook, withEndpointOf } from "./webhooks.js"

export const endpoint = HttpApiEndpoint.post("rotateWebhookSecret", "/accounts/:accountId/webhook/rotate-secret", {
  params: AccountIdPath,
  payload: Schema.Struct({
    graceSeconds: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 7 * 86_400 }, { message: "must be an integer between 0 and 604800" })))
  }),
  success: IssuedWebhook.pipe(HttpApiSchema.status(201)),
  error: [error(400), error(404), ...adminErrors]
})

export const rotateWebhookSecret = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(withEndpointOf, (webhooks) => ({ path, payload }) =>
    webhooks(path.accountId, (w) => Effect.map(w.rotateSecret(path.accountId, payload.graceSeconds === undefined ? undefined : payload.graceSeconds * 1000), issuedWebhook)))
})
