/**
 * Handlers of the admin API.
 *
 * @since 1.0.0
 */
import { Accounts, Errors, Webhooks } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { AdminGroup } from "../AdminApi.js"
import { InvalidInput } from "../ErrorResponse.js"
import type { GroupHandlers } from "./routes.js"

/** What admin handlers know of the request. */
export interface AdminContext {
  readonly path: string
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

const issued = (key: Accounts.IssuedKey) => ({
  id: key.id,
  key: Redacted.value(key.key),
  prefix: key.prefix,
  expiresAt: iso(key.expiresAt)
})

const endpointView = (e: Webhooks.EndpointView) => ({
  accountId: e.accountId,
  url: e.url,
  createdAt: new Date(e.createdAt).toISOString(),
  updatedAt: new Date(e.updatedAt).toISOString(),
  failingSince: iso(e.failingSince),
  disabledAt: iso(e.disabledAt),
  disabledReason: e.disabledReason,
  previousSecretExpiresAt: iso(e.previousSecretExpiresAt)
})

const issuedWebhook = ({ endpoint, secret }: Webhooks.IssuedEndpoint) => ({ value: { ...endpointView(endpoint), secret } })

/** @category handlers */
export const handlers = Effect.gen(function*() {
  const accounts = yield* Accounts.Accounts
  // Webhook delivery is optional for an embedding application: without it there is no endpoint and no attempt.
  const webhooks = yield* Effect.serviceOption(Webhooks.Webhooks)
  const withWebhooks = <A, E, E2>(
    absent: () => E2,
    f: (service: Webhooks.Webhooks["Type"]) => Effect.Effect<A, E>
  ): Effect.Effect<A, E | E2> => Option.match(webhooks, { onNone: () => Effect.fail(absent()), onSome: f })
  const noEndpoint = (accountId: string) => () => new Errors.WebhookNotFound({ accountId })
  const noMessage = (id: string) => () => new Errors.MessageNotFound({ id })
  const result: GroupHandlers<typeof AdminGroup, AdminContext> = {
    createAccount: ({ payload }) =>
      Effect.map(accounts.create({ plan: payload.plan, limits: payload.limits }), ({ account, key }) => ({
        value: {
          id: account.id,
          plan: account.plan,
          limits: account.limits,
          key: Redacted.value(key.key),
          keyId: key.id,
          prefix: key.prefix
        }
      })),
    createKey: ({ path, payload }) => {
      const expiresAt = payload.expiresAt === undefined ? undefined : Date.parse(payload.expiresAt)
      if (expiresAt !== undefined && !Number.isFinite(expiresAt)) {
        return Effect.fail(new InvalidInput({ message: "body expiresAt: is not a valid date" }))
      }
      return Effect.map(accounts.issueKey(path.accountId, { expiresAt }), (key) => ({ value: issued(key) }))
    },
    listKeys: ({ path }) =>
      Effect.map(accounts.listKeys(path.accountId), (keys) => ({
        value: keys.map((k) => ({
          id: k.id,
          prefix: k.prefix,
          state: k.state,
          createdAt: new Date(k.createdAt).toISOString(),
          expiresAt: iso(k.expiresAt),
          revokedAt: iso(k.revokedAt)
        }))
      })),
    rotateKey: ({ path, payload }) =>
      Effect.map(accounts.rotate(path.keyId, { graceSeconds: payload.graceSeconds }), (key) => ({ value: issued(key) })),
    revokeKey: ({ path }) => Effect.as(accounts.revoke(path.keyId), { value: undefined }),
    setWebhook: ({ path, payload }) =>
      withWebhooks(noEndpoint(path.accountId), (w) => Effect.map(w.setEndpoint(path.accountId, payload.url), issuedWebhook)),
    getWebhook: ({ path }) =>
      withWebhooks(noEndpoint(path.accountId), (w) => Effect.map(w.getEndpoint(path.accountId), (e) => ({ value: endpointView(e) }))),
    deleteWebhook: ({ path }) =>
      withWebhooks(noEndpoint(path.accountId), (w) => Effect.as(w.removeEndpoint(path.accountId), { value: undefined })),
    rotateWebhookSecret: ({ path, payload }) =>
      withWebhooks(noEndpoint(path.accountId), (w) =>
        Effect.map(
          w.rotateSecret(path.accountId, payload.graceSeconds === undefined ? undefined : payload.graceSeconds * 1000),
          issuedWebhook
        )),
    replayFailedMessages: ({ path, payload }) =>
      withWebhooks(noEndpoint(path.accountId), (w) =>
        Effect.map(w.replayFailed(path.accountId, Date.parse(payload.since)), (replayed) => ({ value: { replayed } }))),
    listMessageAttempts: ({ path }) =>
      withWebhooks(noMessage(path.messageId), (w) =>
        Effect.map(w.attempts(path.messageId), (attempts) => ({
          value: attempts.map((a) => ({
            attempt: a.attempt,
            url: a.url,
            startedAt: new Date(a.startedAt).toISOString(),
            durationMs: a.durationMillis,
            statusCode: a.statusCode,
            error: a.error
          }))
        }))),
    replayMessage: ({ path }) =>
      withWebhooks(noMessage(path.messageId), (w) => Effect.map(w.replay(path.messageId), (value) => ({ value })))
  }
  return result
})
