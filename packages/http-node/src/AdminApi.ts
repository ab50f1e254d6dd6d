/**
 * The admin API (`/admin/v1`): accounts and keys, outside the public interface, enabled only when
 * an admin token is configured and protected by that token.
 *
 * @since 1.0.0
 */
import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import { ErrorBody, Message, Plan } from "@petstore/core"
import * as Schema from "effect/Schema"
import { Iso8601 } from "./internal/dateTime.js"
import * as UsageReport from "./internal/usageReport.js"

export const ADMIN_PREFIX = "/admin/v1"

const Id = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_]{1,64}$/, { message: () => "must be an id" }))

export const CreateAccount = Schema.Struct({
  plan: Plan.Plan,
  limits: Schema.optionalKey(Plan.PlanLimits)
})

export const CreatedAccount = Schema.Struct({
  id: Schema.String,
  plan: Plan.Plan,
  limits: Plan.PlanLimits,
  key: Schema.String.annotate({ description: "The full API key. It is shown only here, once." }),
  keyId: Schema.String,
  prefix: Schema.String
})

export const IssuedKey = Schema.Struct({
  id: Schema.String,
  key: Schema.String.annotate({ description: "The full API key. It is shown only here, once." }),
  prefix: Schema.String,
  expiresAt: Schema.NullOr(Schema.String)
})

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

export const WebhookUrl = Schema.Struct({
  url: Schema.String.annotate({ description: "Where messages are POSTed: an https URL whose addresses are public." })
})

const WEBHOOK_FIELDS = {
  accountId: Schema.String,
  url: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  failingSince: Schema.NullOr(Schema.String).annotate({ description: "Since when every attempt has failed; null after a success." }),
  disabledAt: Schema.NullOr(Schema.String).annotate({ description: "When the endpoint was disabled; it stays disabled until it is set again." }),
  disabledReason: Schema.NullOr(Schema.String),
  previousSecretExpiresAt: Schema.NullOr(Schema.String).annotate({ description: "During a rotation, when the previous secret stops signing." })
}

export const WebhookEndpoint = Schema.Struct(WEBHOOK_FIELDS)

export const IssuedWebhook = Schema.Struct({
  ...WEBHOOK_FIELDS,
  secret: Schema.String.annotate({ description: "The signing secret (whsec_…). It is shown only here, once." })
})

export const WebhookAttempt = Schema.Struct({
  attempt: Schema.Int,
  url: Schema.String,
  startedAt: Schema.String,
  durationMs: Schema.Int,
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String)
})

const MessageIdPath = Schema.Struct({ messageId: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_]{1,64}$/, { message: () => "must be a message id" })) })

const error = (status: number) => ErrorBody.ErrorBody.annotate(HttpApiSchema.annotate({ status }))

export class AdminGroup extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("createAccount", "/accounts")
      .setPayload(CreateAccount)
      .addSuccess(CreatedAccount, { status: 201 })
      .addError(error(400))
  )
  .add(
    HttpApiEndpoint.post("createKey", "/accounts/:accountId/keys")
      .setPath(Schema.Struct({ accountId: Id }))
      .setPayload(Schema.Struct({ expiresAt: Schema.optionalKey(Iso8601) }))
      .addSuccess(IssuedKey, { status: 201 })
      .addError(error(400))
      .addError(error(404))
  )
  .add(
    HttpApiEndpoint.get("listKeys", "/accounts/:accountId/keys")
      .setPath(Schema.Struct({ accountId: Id }))
      .addSuccess(Schema.Array(KeyMetadata))
      .addError(error(404))
  )
  .add(
    HttpApiEndpoint.post("rotateKey", "/keys/:keyId/rotate")
      .setPath(Schema.Struct({ keyId: Id }))
      .setPayload(Schema.Struct({
        graceSeconds: Schema.optionalKey(Schema.Int.pipe(Schema.between(0, 30 * 86_400, { message: () => "must be an integer between 0 and 2592000" })))
      }))
      .addSuccess(IssuedKey, { status: 201 })
      .addError(error(400))
      .addError(error(404))
      .addError(
        error(409).annotate({
          description: "`key_already_rotated`: the key was rotated already; the message names its successor, the key to rotate."
        })
      )
  )
  .add(
    HttpApiEndpoint.del("revokeKey", "/keys/:keyId")
      .setPath(Schema.Struct({ keyId: Id }))
      .addSuccess(Schema.Void, { status: 204 })
      .addError(error(404))
  )
  .add(
    HttpApiEndpoint.put("setWebhook", "/accounts/:accountId/webhook")
      .setPath(Schema.Struct({ accountId: Id }))
      .setPayload(WebhookUrl)
      .addSuccess(IssuedWebhook)
      .addError(error(400))
      .addError(error(404))
  )
  .add(
    HttpApiEndpoint.get("getWebhook", "/accounts/:accountId/webhook")
      .setPath(Schema.Struct({ accountId: Id }))
      .addSuccess(WebhookEndpoint)
      .addError(error(404))
  )
  .add(
    HttpApiEndpoint.del("deleteWebhook", "/accounts/:accountId/webhook")
      .setPath(Schema.Struct({ accountId: Id }))
      .addSuccess(Schema.Void, { status: 204 })
      .addError(error(404))
  )
  .add(
    HttpApiEndpoint.post("rotateWebhookSecret", "/accounts/:accountId/webhook/rotate-secret")
      .setPath(Schema.Struct({ accountId: Id }))
      .setPayload(Schema.Struct({
        graceSeconds: Schema.optionalKey(Schema.Int.pipe(Schema.between(0, 7 * 86_400, { message: () => "must be an integer between 0 and 604800" })))
      }))
      .addSuccess(IssuedWebhook, { status: 201 })
      .addError(error(400))
      .addError(error(404))
  )
  .add(
    HttpApiEndpoint.post("replayFailedMessages", "/accounts/:accountId/webhook/replay")
      .setPath(Schema.Struct({ accountId: Id }))
      .setPayload(Schema.Struct({ since: Iso8601 }))
      .addSuccess(Schema.Struct({ replayed: Schema.Array(Schema.String) }), { status: 202 })
      .addError(error(400))
      .addError(error(404))
  )
  .add(
    HttpApiEndpoint.get("listMessageAttempts", "/messages/:messageId/attempts")
      .setPath(MessageIdPath)
      .addSuccess(Schema.Array(WebhookAttempt))
      .addError(error(404))
  )
  .add(
    HttpApiEndpoint.post("replayMessage", "/messages/:messageId/replay")
      .setPath(MessageIdPath)
      .addSuccess(Message.Message, { status: 202 })
      .addError(error(404))
  )
  .add(
    HttpApiEndpoint.get("accountUsage", "/accounts/:accountId/usage")
      .setPath(Schema.Struct({ accountId: Id }))
      .setUrlParams(UsageReport.UsageParams)
      .addSuccess(UsageReport.AdminUsageReport)
      .addError(error(400))
      .addError(error(404))
  )
  .add(
    HttpApiEndpoint.get("topUsage", "/usage/top")
      .setUrlParams(UsageReport.TopParams)
      .addSuccess(UsageReport.TopUsage)
      .addError(error(400))
      .addError(error(404))
  )
  .addError(error(401))
  .addError(error(503))
  .prefix(ADMIN_PREFIX)
{}

export class AdminApi extends HttpApi.make("petstore-admin").add(AdminGroup) {}
