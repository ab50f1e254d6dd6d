/**
 * An account's webhook endpoint as the admin API answers it, and the webhook operations' access to
 * the optional `Webhooks` service: an application without webhook delivery has no endpoint and no
 * attempt (its operations answer 404).
 */
import { Errors, Webhooks } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { iso } from "./adminEndpoint.js"

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

/** The answer's value for an endpoint. */
export const endpointView = (e: Webhooks.EndpointView): typeof WebhookEndpoint.Type => ({
  accountId: e.accountId,
  url: e.url,
  createdAt: new Date(e.createdAt).toISOString(),
  updatedAt: new Date(e.updatedAt).toISOString(),
  failingSince: iso(e.failingSince),
  disabledAt: iso(e.disabledAt),
  disabledReason: e.disabledReason,
  previousSecretExpiresAt: iso(e.previousSecretExpiresAt),
  secretError: e.secretError
})

/** The reply for an endpoint just set or given a new secret (the secret shown once). */
export const issuedWebhook = ({ endpoint, secret }: Webhooks.IssuedEndpoint) => ({ value: { ...endpointView(endpoint), secret } })

/**
 * `f` of the `Webhooks` service, built once with the handler: without the service, the failure
 * `absent()` (the 404 of what the operation names).
 */
export const withWebhooks = Effect.map(Effect.serviceOption(Webhooks.Webhooks), (webhooks) =>
  <A, E, E2>(absent: () => E2, f: (service: Webhooks.Webhooks["Service"]) => Effect.Effect<A, E>): Effect.Effect<A, E | E2> =>
    Option.match(webhooks, { onNone: () => Effect.fail(absent()), onSome: f }))

/** `withWebhooks` for an operation on `accountId`'s endpoint: without the service, 404 for that endpoint. */
export const withEndpointOf = Effect.map(withWebhooks, (webhooks) =>
  <A, E>(accountId: string, f: (service: Webhooks.Webhooks["Service"]) => Effect.Effect<A, E>) =>
    webhooks(() => new Errors.WebhookNotFound({ accountId }), f))
