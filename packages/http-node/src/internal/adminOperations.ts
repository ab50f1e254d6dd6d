/**
 * Handlers of the admin API.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import { Accounts, DailyQuota, Errors, Usage, UsageRange, Webhooks } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { ADMIN_PREFIX, type AdminGroup } from "../AdminApi.js"
import { InvalidInput, UsageNotCounted } from "../ErrorResponse.js"
import { nextLink } from "./operations/listPets.js"
import * as UsageReport from "./usageReport.js"
import type { GroupHandlers } from "./routes.js"

/** What admin handlers know of the request. */
export interface AdminContext {
  /** The operation's route (`/admin/v1/accounts/:accountId/…`). */
  readonly path: string
  /** What the paths answers link to start with (empty unless the application is mounted under a base path). */
  readonly basePath: string
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
  previousSecretExpiresAt: iso(e.previousSecretExpiresAt),
  secretError: e.secretError
})

const issuedWebhook = ({ endpoint, secret }: Webhooks.IssuedEndpoint) => ({ value: { ...endpointView(endpoint), secret } })

/** @category handlers */
export const handlers = Effect.gen(function*() {
  const accounts = yield* Accounts.Accounts
  // Webhook delivery is optional for an embedding application: without it there is no endpoint and no attempt.
  const webhooks = yield* Effect.serviceOption(Webhooks.Webhooks)
  const withWebhooks = <A, E, E2>(
    absent: () => E2,
    f: (service: Webhooks.Webhooks["Service"]) => Effect.Effect<A, E>
  ): Effect.Effect<A, E | E2> => Option.match(webhooks, { onNone: () => Effect.fail(absent()), onSome: f })
  const noEndpoint = (accountId: string) => () => new Errors.WebhookNotFound({ accountId })
  const noMessage = (id: string) => () => new Errors.MessageNotFound({ id })
  const noAccount = (id: string) => () => new Errors.AccountNotFound({ id })
  const usage = yield* Effect.serviceOption(Usage.Usage)
  const clock = yield* Clock.Clock
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
          revokedAt: iso(k.revokedAt),
          rotatedTo: k.rotatedTo
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
    listAccountMessages: ({ path, urlParams }, { basePath }) =>
      withWebhooks(noAccount(path.accountId), (w) => {
        const limit = urlParams.limit ?? 20
        return Effect.map(w.listMessages(path.accountId, { status: urlParams.status, limit, cursor: urlParams.cursor }), (page) => ({
          value: page.messages.map((m) => ({
            id: m.id,
            status: m.status,
            message: m.message,
            attempts: m.attempts,
            createdAt: new Date(m.createdAt).toISOString(),
            updatedAt: new Date(m.updatedAt).toISOString(),
            lastError: m.lastError
          })),
          ...(page.next === undefined ? {} : {
            headers: { Link: nextLink(`${basePath}${ADMIN_PREFIX}/accounts/${path.accountId}/messages`, limit, urlParams.status, page.next) }
          })
        }))
      }),
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
      withWebhooks(noMessage(path.messageId), (w) => Effect.map(w.replay(path.messageId), (value) => ({ value }))),
    accountUsage: ({ path, urlParams }) =>
      Effect.gen(function*() {
        if (Option.isNone(usage)) return yield* new UsageNotCounted()
        const now = clock.currentTimeMillisUnsafe()
        const range = UsageReport.rangeOf(urlParams, now)
        if (Result.isFailure(range)) return yield* range.failure
        const account = yield* accounts.findAccount(path.accountId)
        const keys = yield* accounts.listKeys(path.accountId)
        const stored = yield* usage.value.read(path.accountId, range.success)
        const today = DailyQuota.dayOf(now) * DailyQuota.DAY_MS
        const todays = yield* usage.value.read(path.accountId, { granularity: "day", from: today, to: today + DailyQuota.DAY_MS })
        const used = UsageReport.usedToday(todays, today)
        const prefixes = new Map(keys.map((k) => [k.id, k.prefix]))
        const keyIds = [...new Set([...prefixes.keys(), ...stored.map((b) => b.keyId)])]
        return {
          value: {
            accountId: account.id,
            granularity: range.success.granularity,
            buckets: UsageRange.fill(range.success, stored).map(UsageReport.bucketOf),
            limits: {
              minute: { limit: account.limits.perMinute },
              day: {
                limit: account.limits.perDay,
                used,
                remaining: Math.max(0, account.limits.perDay - used),
                reset: UsageReport.iso(today + DailyQuota.DAY_MS)
              }
            },
            // The account's keys and those with traffic, busiest first, at most `keys` of them;
            // those without traffic zero-filled.
            byKey: UsageReport.busiest(keyIds, stored, urlParams.keys ?? UsageReport.DEFAULT_KEYS).map((keyId) => ({
              keyId,
              prefix: prefixes.get(keyId) ?? "",
              buckets: UsageRange.fill(range.success, stored.filter((b) => b.keyId === keyId)).map(UsageReport.bucketOf)
            })),
            keysTotal: keyIds.length
          }
        }
      }),
    topUsage: ({ urlParams }) =>
      Effect.gen(function*() {
        if (Option.isNone(usage)) return yield* new UsageNotCounted()
        const range = UsageReport.rangeOf(urlParams, clock.currentTimeMillisUnsafe())
        if (Result.isFailure(range)) return yield* range.failure
        const by = urlParams.by ?? "total"
        const top = yield* usage.value.top(range.success, by, urlParams.limit ?? 10)
        return {
          value: {
            by,
            granularity: range.success.granularity,
            from: UsageReport.iso(range.success.from),
            to: UsageReport.iso(range.success.to),
            accounts: top.map((t) => ({ accountId: t.accountId, total: t.total, refused: t.refused }))
          }
        }
      })
  }
  return result
})
