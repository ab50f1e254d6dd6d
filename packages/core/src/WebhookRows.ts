/**
 * Webhook endpoints and attempts as database rows (snake_case columns, secrets as JSON text), shared
 * by the SQL adapters so each reads and writes them the same way.
 *
 * @since 1.0.0
 */
import type { WebhookAttempt } from "./WebhookAttempt.js"
import type { WebhookEndpoint, WebhookSecret } from "./WebhookEndpoint.js"

/** A row of the webhook endpoints table. */
export interface EndpointRow {
  readonly account_id: string
  readonly url: string
  readonly secrets: string
  readonly created_at: number | string
  readonly updated_at: number | string
  readonly failing_since: number | string | null
  readonly disabled_at: number | string | null
  readonly disabled_reason: string | null
}

/** A row of the webhook attempts table. */
export interface AttemptRow {
  readonly message_id: string
  readonly account_id: string
  readonly attempt: number
  readonly url: string
  readonly started_at: number | string
  readonly duration_ms: number
  readonly status_code: number | null
  readonly error: string | null
}

const time = (v: number | string): number => Number(v)
const maybeTime = (v: number | string | null): number | null => (v === null ? null : Number(v))

/** The columns of `webhook_endpoints`, in the order `endpointValues` gives them. */
export const ENDPOINT_COLUMNS = "account_id, url, secrets, created_at, updated_at, failing_since, disabled_at, disabled_reason"

/** The column values of an endpoint, in the table's order. */
export const endpointValues = (e: WebhookEndpoint): ReadonlyArray<string | number | null> => [
  e.accountId,
  e.url,
  JSON.stringify(e.secrets.map(({ expiresAt, secret }) => ({ secret, expiresAt }))),
  e.createdAt,
  e.updatedAt,
  e.failingSince,
  e.disabledAt,
  e.disabledReason
]

/** The endpoint of a row. */
export const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  accountId: row.account_id,
  url: row.url,
  secrets: JSON.parse(row.secrets) as ReadonlyArray<WebhookSecret>,
  createdAt: time(row.created_at),
  updatedAt: time(row.updated_at),
  failingSince: maybeTime(row.failing_since),
  disabledAt: maybeTime(row.disabled_at),
  disabledReason: row.disabled_reason
})

/** The columns of `webhook_attempts`, in the order `attemptValues` gives them. */
export const ATTEMPT_COLUMNS = "message_id, account_id, attempt, url, started_at, duration_ms, status_code, error"

/** The column values of an attempt, in the table's order. */
export const attemptValues = (a: WebhookAttempt): ReadonlyArray<string | number | null> => [
  a.messageId,
  a.accountId,
  a.attempt,
  a.url,
  a.startedAt,
  a.durationMillis,
  a.statusCode,
  a.error
]

/** The attempt of a row. */
export const toAttempt = (row: AttemptRow): WebhookAttempt => ({
  messageId: row.message_id,
  accountId: row.account_id,
  attempt: Number(row.attempt),
  url: row.url,
  startedAt: time(row.started_at),
  durationMillis: Number(row.duration_ms),
  statusCode: row.status_code === null ? null : Number(row.status_code),
  error: row.error
})
