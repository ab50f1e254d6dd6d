/**
 * `POST /admin/v1/accounts/{accountId}/keys`: issues another key of the account, expiring at
 * `expiresAt` when given; `201` with the key, shown only in this answer.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import { Accounts } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { InvalidInput } from "../../../ErrorResponse.js"
import { Iso8601 } from "../../dateTime.js"
import * as Operation from "../operation.js"
import { AccountIdPath, adminErrors, error } from "./adminEndpoint.js"
import { issued, IssuedKey } from "./keys.js"

export const endpoint = HttpApiEndpoint.post("createKey", "/accounts/:accountId/keys", {
  params: AccountIdPath,
  payload: Schema.Struct({ expiresAt: Schema.optionalKey(Iso8601) }),
  success: IssuedKey.pipe(HttpApiSchema.status(201)),
  error: [error(400), error(404), ...adminErrors]
})

export const createKey = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(Accounts.Accounts, (accounts) => ({ path, payload }) => {
    const expiresAt = payload.expiresAt === undefined ? undefined : Date.parse(payload.expiresAt)
    if (expiresAt !== undefined && !Number.isFinite(expiresAt)) {
      return Effect.fail(new InvalidInput({ location: "body expiresAt" }))
    }
    return Effect.map(accounts.issueKey(path.accountId, { expiresAt }), (key) => ({ value: issued(key) }))
  })
})
