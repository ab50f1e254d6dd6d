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
import { integer1To100, ResponseHeaders } from "./internal/operations/endpoint.js"
import * as UsageReport from "./internal/usageReport.js"

/** The path every admin endpoint is under. */
export const ADMIN_PREFIX = "/admin/v1"

const Id = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_]{1,64}$/, { message: "must be an id" }))

/** The body of an account's creation. */
export const CreateAccount = Schema.Struct({
  plan: Plan.Plan,
  limits: Schema.optionalKey(Plan.PlanLimits)
})

/** A created account and its first key, shown once. */
export const CreatedAccount = Schema.Struct({
  id: Schema.String,
  plan: Plan.Plan,
  limits: Plan.PlanLimits,
  key: Schema.String.annotate({ description: "The full API key. It is shown only here, once." }),
  keyId: Schema.String,
  prefix: Schema.String
})

/** A key as it is issued, shown once. */
export const IssuedKey = Schema.Struct({
  id: Schema.String,
  key: Schema.String.annotate({ description: "The full API key. It is shown only here, once." }),
  prefix: Schema.String,
  expiresAt: Schema.NullOr(Schema.String)
})

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

/** The body that sets an account's webhook endpoint. */
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
  previousSecretExpiresAt: Schema.NullOr(Schema.String).annotate({ description: "During a rotation, when the previous secret stops signing." }),
  secretError: Schema.NullOr(Schema.String).annotate({
    description: "Why deliveries cannot be signed now (a signing secret does not open with the server's PETSTORE_WEBHOOK_SECRET_KEY), or null. Each such delivery is a failed attempt, kept for replay."
  })
}

/** An account's webhook endpoint as the admin API shows it. */
export const WebhookEndpoint = Schema.Struct(WEBHOOK_FIELDS)

/** A webhook endpoint as it is set: its signing secret shown once. */
export const IssuedWebhook = Schema.Struct({
  ...WEBHOOK_FIELDS,
  secret: Schema.String.annotate({ description: "The signing secret (whsec_…). It is shown only here, once." })
})

/** One attempt to deliver a message to a webhook endpoint. */
export const WebhookAttempt = Schema.Struct({
  attempt: Schema.Int,
  url: Schema.String,
  startedAt: Schema.String,
  durationMs: Schema.Int,
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String)
})

/** The query of an account's messages: a status, a page size and where the page starts. */
export const AccountMessagesParams = Schema.Struct({
  status: Schema.optionalKey(Message.MessageStatus.annotate({ description: "Only the messages in this status (`failed` for those to look into or replay)." })),
  limit: Schema.optionalKey(
    integer1To100
      .annotate({ description: "Messages a page at most (1..100, default 20).", default: 20 })
  ),
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "Opaque cursor from the `Link` header of the previous page." }))
})

/** A message as the admin sees it: the account's view, with its times and its last error. */
export const AdminMessage = Schema.Struct({
  id: Schema.String,
  status: Message.MessageStatus,
  message: Schema.String,
  attempts: Schema.Int,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  lastError: Schema.NullOr(Schema.String).annotate({ description: "The account's view of the last failure; the attempts have the full text." })
})

const MessageIdPath = Schema.Struct({ messageId: Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_]{1,64}$/, { message: "must be a message id" })) })

const error = (status: number) => ErrorBody.ErrorBody.pipe(HttpApiSchema.status(status))

/** What every admin operation can answer besides its own errors. */
const adminErrors = [error(401), error(503)] as const

/** The admin API's endpoints: accounts, keys, webhooks, usage and messages. */
export class AdminGroup extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("createAccount", "/accounts", {
    payload: CreateAccount,
    success: CreatedAccount.pipe(HttpApiSchema.status(201)),
    error: [error(400), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.post("createKey", "/accounts/:accountId/keys", {
    params: Schema.Struct({ accountId: Id }),
    payload: Schema.Struct({ expiresAt: Schema.optionalKey(Iso8601) }),
    success: IssuedKey.pipe(HttpApiSchema.status(201)),
    error: [error(400), error(404), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.get("listKeys", "/accounts/:accountId/keys", {
    params: Schema.Struct({ accountId: Id }),
    success: Schema.Array(KeyMetadata),
    error: [error(404), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.post("rotateKey", "/keys/:keyId/rotate", {
    params: Schema.Struct({ keyId: Id }),
    payload: Schema.Struct({
        graceSeconds: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 30 * 86_400 }, { message: "must be an integer between 0 and 2592000" })))
      }),
    success: IssuedKey.pipe(HttpApiSchema.status(201)),
    error: [error(400), error(404), error(409).annotate({
          description: "`key_already_rotated`: the key was rotated already; the message names its successor, the key to rotate."
        }), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.delete("revokeKey", "/keys/:keyId", {
    params: Schema.Struct({ keyId: Id }),
    success: Schema.Void.pipe(HttpApiSchema.status(204)),
    error: [error(404), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.put("setWebhook", "/accounts/:accountId/webhook", {
    params: Schema.Struct({ accountId: Id }),
    payload: WebhookUrl,
    success: IssuedWebhook,
    error: [error(400), error(404), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.get("getWebhook", "/accounts/:accountId/webhook", {
    params: Schema.Struct({ accountId: Id }),
    success: WebhookEndpoint,
    error: [error(404), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.delete("deleteWebhook", "/accounts/:accountId/webhook", {
    params: Schema.Struct({ accountId: Id }),
    success: Schema.Void.pipe(HttpApiSchema.status(204)),
    error: [error(404), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.post("rotateWebhookSecret", "/accounts/:accountId/webhook/rotate-secret", {
    params: Schema.Struct({ accountId: Id }),
    payload: Schema.Struct({
        graceSeconds: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 7 * 86_400 }, { message: "must be an integer between 0 and 604800" })))
      }),
    success: IssuedWebhook.pipe(HttpApiSchema.status(201)),
    error: [error(400), error(404), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.post("replayFailedMessages", "/accounts/:accountId/webhook/replay", {
    params: Schema.Struct({ accountId: Id }),
    payload: Schema.Struct({ since: Iso8601 }),
    success: Schema.Struct({ replayed: Schema.Array(Schema.String) }).pipe(HttpApiSchema.status(202)),
    error: [error(400), error(404), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.get("listAccountMessages", "/accounts/:accountId/messages", {
    params: Schema.Struct({ accountId: Id }),
    query: AccountMessagesParams,
    success: Schema.Array(AdminMessage),
    error: [error(400), error(404), ...adminErrors]
  }).annotate(ResponseHeaders, ["Link"])
  )
  .add(
    HttpApiEndpoint.get("listMessageAttempts", "/messages/:messageId/attempts", {
    params: MessageIdPath,
    success: Schema.Array(WebhookAttempt),
    error: [error(404), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.post("replayMessage", "/messages/:messageId/replay", {
    params: MessageIdPath,
    success: Message.Message.pipe(HttpApiSchema.status(202)),
    error: [error(404), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.get("accountUsage", "/accounts/:accountId/usage", {
    params: Schema.Struct({ accountId: Id }),
    query: UsageReport.AdminUsageParams,
    success: UsageReport.AdminUsageReport,
    error: [error(400), error(404), ...adminErrors]
  })
  )
  .add(
    HttpApiEndpoint.get("topUsage", "/usage/top", {
    query: UsageReport.TopParams,
    success: UsageReport.TopUsage,
    error: [error(400), error(404), ...adminErrors]
  })
  )
  .prefix(ADMIN_PREFIX)
{}

/** The admin API's definition, behind the admin token. */
export const AdminApi = HttpApi.make("petstore-admin").add(AdminGroup)
/** The type of the admin API's definition. */
export type AdminApi = typeof AdminApi
