/** `DELETE /admin/v1/keys/{keyId}`: revokes the key at once; `204`. */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import { Accounts } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Operation from "../operation.js"
import { adminErrors, error, Id } from "./adminEndpoint.js"

export const endpoint = HttpApiEndpoint.delete("revokeKey", "/keys/:keyId", {
  params: Schema.Struct({ keyId: Id }),
  success: Schema.Void.pipe(HttpApiSchema.status(204)),
  error: [error(404), ...adminErrors]
})

export const revokeKey = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(Accounts.Accounts, (accounts) => ({ path }) => Effect.as(accounts.revoke(path.keyId), { value: undefined }))
})
