/** `POST /admin/v1/accounts/{accountId}/webhook/replay`: queues again the account's messages failed since `since`; `202` with their ids. */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Iso8601 } from "../../dateTime.js"
import * as Operation from "../operation.js"
import { AccountIdPath, adminErrors, error } from "./adminEndpoint.js"
import { withEndpointOf } from "./webhooks.js"

export const endpoint = HttpApiEndpoint.post("replayFailedMessages", "/accounts/:accountId/webhook/replay", {
  params: AccountIdPath,
  payload: Schema.Struct({ since: Iso8601 }),
  success: Schema.Struct({ replayed: Schema.Array(Schema.String) }).pipe(HttpApiSchema.status(202)),
  error: [error(400), error(404), ...adminErrors]
})

export const replayFailedMessages = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(withEndpointOf, (webhooks) => ({ path, payload }) =>
    webhooks(path.accountId, (w) => Effect.map(w.replayFailed(path.accountId, Date.parse(payload.since)), (replayed) => ({ value: { replayed } }))))
})
