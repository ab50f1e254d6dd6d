/**
 * `GET /admin/v1/accounts/{accountId}/keys`: the account's keys (never the keys themselves), with
 * their state and what replaced a rotated one.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { Accounts } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Operation from "../operation.js"
import { AccountIdPath, adminErrors, error, iso } from "./adminEndpoint.js"

/** A key as it is listed: never its secret. */
export const KeyMetadata = Schema.Struct({
  id: Schema.String,
  prefix: Schema.String,
  state: Schema.Literals(["active", "expired", "revoked"]),
  createdAt: Schema.String,
  expiresAt: Schema.NullOr(Schema.String),
  revokedAt: Schema.NullOr(Schema.String),
  rotatedTo: Schema.NullOr(Schema.String).annotate({
    description: "The id of the key that replaced this one when it was rotated (a key is rotated once); null otherwise."
  })
})

export const endpoint = HttpApiEndpoint.get("listKeys", "/accounts/:accountId/keys", {
  params: AccountIdPath,
  success: Schema.Array(KeyMetadata),
  error: [error(404), ...adminErrors]
})

export const listKeys = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(Accounts.Accounts, (accounts) => ({ path }) =>
    Effect.map(accounts.listKeys(path.accountId), (keys) => ({
      value: keys.map((k) => ({
        id: k.id,
        prefix: k.prefix,
        state: k.state,
        createdAt: new Date(k.createdAt).toISOString(),
        expiresAt: iso(k.expiresAt),
        revokedAt: iso(k.revokedAt),
        rotatedTo: k.rotatedTo
      }))
    })))
})
