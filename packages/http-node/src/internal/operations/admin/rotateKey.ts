/**
 * `POST /admin/v1/keys/{keyId}/rotate`: issues the key's successor; the key stays valid for
 * `graceSeconds`. A key is rotated once (`409 key_already_rotated` names its successor).
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import { Accounts } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Operation from "../operation.js"
import { adminErrors, error, Id } from "./adminEndpoint.js"
import { issued, IssuedKey } from "./keys.js"

export const endpoint = HttpApiEndpoint.post("rotateKey", "/keys/:keyId/rotate", {
  params: Schema.Struct({ keyId: Id }),
  payload: Schema.Struct({
    graceSeconds: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 30 * 86_400 }, { message: "must be an integer between 0 and 2592000" })))
  }),
  success: IssuedKey.pipe(HttpApiSchema.status(201)),
  error: [error(400), error(404), error(409).annotate({
    description: "`key_already_rotated`: the key was rotated already; the message names its successor, the key to rotate."
  }), ...adminErrors]
})

export const rotateKey = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(Accounts.Accounts, (accounts) => ({ path, payload }) =>
    Effect.map(accounts.rotate(path.keyId, { graceSeconds: payload.graceSeconds }), (key) => ({ value: issued(key) })))
})
