/**
 * Reads everything a SQLite file holds as a `StoreSnapshot` (to move it into another store), in
 * one read transaction, so the snapshot is consistent even while a server writes the file.
 *
 * @since 1.0.0
 */
import { Effect } from "effect"
import type { AccountStore, Message, Pet, Plan, StoreSnapshot } from "@petstore/core"
import { Connection, DatabaseOpenError, explain } from "./Connection.js"

/** @category constructors */
export const snapshot: Effect.Effect<StoreSnapshot.StoreSnapshot, DatabaseOpenError, Connection> = Effect.flatMap(
  Connection,
  (connection) =>
    Effect.try({
      try: () => {
        const all = (source: string) => connection.prepare(source).all() as Array<Record<string, unknown>>
        connection.exec("BEGIN")
        try {
          const accounts = all("SELECT id, plan, per_minute, per_day, created_at FROM accounts ORDER BY created_at, id").map(
            (r): AccountStore.Account => ({
              id: r.id as string,
              plan: r.plan as Plan.Plan,
              limits: { perMinute: r.per_minute as number, perDay: r.per_day as number },
              createdAt: r.created_at as number
            })
          )
          const keys = all(
            "SELECT id, account_id, hash, prefix, created_at, expires_at, revoked_at FROM api_keys ORDER BY created_at, id"
          ).map((r): AccountStore.KeyRecord => ({
            id: r.id as string,
            accountId: r.account_id as string,
            hash: r.hash as string,
            prefix: r.prefix as string,
            createdAt: r.created_at as number,
            expiresAt: r.expires_at as number | null,
            revokedAt: r.revoked_at as number | null
          }))
          const pets = all("SELECT id, name, category_id, status FROM pets ORDER BY id").map((r): Pet.Pet => ({
            id: r.id as Pet.PetId,
            name: r.name as string,
            categoryId: r.category_id as Pet.CategoryId,
            status: r.status as Pet.PetStatus
          }))
          const messages = all(
            `SELECT id, account_id, message, status, created_at, updated_at, attempts, available_at, lease_until, last_error
             FROM messages ORDER BY seq`
          ).map((r) => ({
            id: r.id as string,
            accountId: r.account_id as string,
            message: r.message as string,
            status: r.status as Message.MessageStatus,
            createdAt: r.created_at as number,
            updatedAt: r.updated_at as number,
            attempts: r.attempts as number,
            availableAt: r.available_at as number,
            leaseUntil: r.lease_until as number,
            lastError: r.last_error as string | null
          }))
          const quotas = all("SELECT account_id, day, used FROM limiter_quotas").map((r) =>
            [r.account_id as string, { day: r.day as number, used: r.used as number }] as const
          )
          const standings = all(
            "SELECT key_id, wait_until, strikes, banned_until, bans, last_ban_at FROM limiter_standings"
          ).map((r) =>
            [r.key_id as string, {
              waitUntil: r.wait_until as number,
              strikes: r.strikes as number,
              bannedUntil: r.banned_until as number,
              bans: r.bans as number,
              lastBanAt: r.last_ban_at as number
            }] as const
          )
          const secret = connection.prepare("SELECT value FROM secrets WHERE name = 'cursor-hmac'").pluck().get() as
            | Uint8Array
            | undefined
          return {
            accounts,
            keys,
            pets,
            messages,
            limiter: { quotas, standings },
            cursorSecret: secret === undefined ? undefined : new Uint8Array(secret)
          }
        } finally {
          connection.exec("COMMIT")
        }
      },
      catch: (cause) =>
        new DatabaseOpenError({ filename: connection.filename, message: explain(connection.filename, cause), cause })
    })
)
