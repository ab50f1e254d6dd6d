/**
 * The rows of the relational layout both SQL stores (SQLite, PostgreSQL) share: one interface per
 * table, named by its columns, and the conversion to the domain's records. Times are epoch ms.
 *
 * @since 1.0.0
 */
import type { Account, KeyRecord } from "./AccountStore.js"
import type { KeyStanding } from "./BanPolicy.js"
import type { DailyQuotaState } from "./DailyQuota.js"
import type { IdempotencyKey } from "./IdempotencyKey.js"
import type { IdempotencyRecord } from "./IdempotencyStore.js"
import type { MessageStatus } from "./Message.js"
import type { StoredMessage } from "./MessageStore.js"
import type { Plan } from "./Plan.js"
import type { Counts } from "./UsageStore.js"

export interface AccountRow {
  readonly id: string
  readonly plan: Plan
  readonly per_minute: number
  readonly per_day: number
  readonly created_at: number
}

export const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  plan: row.plan,
  limits: { perMinute: row.per_minute, perDay: row.per_day },
  createdAt: row.created_at
})

export interface KeyRow {
  readonly id: string
  readonly account_id: string
  readonly hash: string
  readonly prefix: string
  readonly created_at: number
  readonly expires_at: number | null
  readonly revoked_at: number | null
  readonly rotated_to: string | null
}

/** The columns of `api_keys`, in table order (see `keyValues`). */
export const KEY_COLUMNS = "id, account_id, hash, prefix, created_at, expires_at, revoked_at, rotated_to"

export const toKey = (row: KeyRow): KeyRecord => ({
  id: row.id,
  accountId: row.account_id,
  hash: row.hash,
  prefix: row.prefix,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  rotatedTo: row.rotated_to
})

/** A key's columns in table order (`KEY_COLUMNS`), for an INSERT. */
export const keyValues = (key: KeyRecord) =>
  [key.id, key.accountId, key.hash, key.prefix, key.createdAt, key.expiresAt, key.revokedAt, key.rotatedTo] as const

export interface MessageRow {
  readonly id: string
  readonly account_id: string
  readonly message: string
  readonly status: MessageStatus
  readonly created_at: number
  readonly updated_at: number
  readonly attempts: number
  readonly available_at: number
  readonly lease_until: number
  readonly last_error: string | null
}

export const toStoredMessage = (row: MessageRow): StoredMessage => ({
  id: row.id,
  accountId: row.account_id,
  message: row.message,
  status: row.status,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  attempts: row.attempts,
  availableAt: row.available_at,
  leaseUntil: row.lease_until,
  lastError: row.last_error
})

export interface QuotaRow {
  readonly account_id: string
  readonly day: number
  readonly used: number
}

export const toQuota = (row: QuotaRow): readonly [string, DailyQuotaState] => [row.account_id, { day: row.day, used: row.used }]

export interface StandingRow {
  readonly key_id: string
  readonly wait_until: number
  readonly strikes: number
  readonly banned_until: number
  readonly bans: number
  readonly last_ban_at: number
}

/** A stored standing; the grace of a wait is not kept, so a restart ends it (see docs/decisions.md). */
export const toStanding = (row: StandingRow): readonly [string, KeyStanding] => [row.key_id, {
  waitUntil: row.wait_until,
  graceUntil: 0,
  strikes: row.strikes,
  bannedUntil: row.banned_until,
  bans: row.bans,
  lastBanAt: row.last_ban_at
}]

/** The counts of a usage bucket (`usage_hourly`, `usage_daily`), or their sums. */
export interface UsageCountsRow {
  readonly allowed: number
  readonly rate_limited: number
  readonly quota_exceeded: number
  readonly banned: number
  readonly client_errors: number
  readonly server_errors: number
}

/** The count columns of the usage tables, in storage order. */
export const USAGE_COUNT_COLUMNS = "allowed, rate_limited, quota_exceeded, banned, client_errors, server_errors"

export const toUsageCounts = (row: UsageCountsRow): Counts => ({
  allowed: row.allowed,
  rateLimited: row.rate_limited,
  quotaExceeded: row.quota_exceeded,
  banned: row.banned,
  clientErrors: row.client_errors,
  serverErrors: row.server_errors
})

/** A row of `idempotency_keys`. */
export interface IdempotencyRow {
  readonly account_id: string
  readonly key: string
  readonly operation: "createPet" | "createMessage"
  readonly fingerprint: string
  readonly resource_id: string
  readonly created_at: number
  readonly expires_at: number
}

export const toIdempotencyRecord = (row: IdempotencyRow): IdempotencyRecord => ({
  accountId: row.account_id,
  key: row.key as IdempotencyKey,
  operation: row.operation,
  fingerprint: row.fingerprint,
  resourceId: row.resource_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at
})
