/**
 * `MessageStore` on PostgreSQL: the `messages` table is the outbox shared by every instance and
 * the truth `GET /messages/{id}` reads. Submissions that arrive together are inserted by one
 * statement (`WriteBatcher`). A claim is one `UPDATE … WHERE seq = (SELECT … FOR UPDATE SKIP
 * LOCKED)`: workers of every instance claim at once, never the same row, without waiting for each
 * other; a claimed row carries a lease, and a row whose lease ran out (its worker or instance died)
 * is claimable again: at-least-once across crashes.
 *
 * @since 1.0.0
 */
import { Effect, Layer, Option } from "effect"
import { type Message, MessageStore } from "@petstore/core"
import { Database } from "./Database.js"
import * as WriteBatcher from "./WriteBatcher.js"

interface MessageRow {
  readonly id: string
  readonly account_id: string
  readonly message: string
  readonly status: Message.MessageStatus
  readonly created_at: number
  readonly updated_at: number
  readonly attempts: number
  readonly available_at: number
  readonly lease_until: number
  readonly last_error: string | null
}

const toStored = (row: MessageRow): MessageStore.StoredMessage => ({
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

const stored = (rows: ReadonlyArray<MessageRow>) => Option.map(Option.fromNullable(rows[0]), toStored)

/** @category constructors */
export const make = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Effect.Effect<MessageStore.MessageStore["Type"], never, Database> =>
  Effect.map(Database, (db) => {
    const inserts = WriteBatcher.make<MessageStore.StoredMessage, void>(
      (ms) =>
        Effect.as(
          db.run((sql) =>
            sql`INSERT INTO messages (id, account_id, message, status, created_at, updated_at, attempts, available_at,
                  lease_until, last_error)
                SELECT m.id, m.account_id, m.message, m.status, m.created_at, m.updated_at, m.attempts, m.available_at,
                  m.lease_until, m.last_error
                FROM unnest(${ms.map((m) => m.id)}::text[], ${ms.map((m) => m.accountId)}::text[],
                  ${ms.map((m) => m.message)}::text[], ${ms.map((m) => m.status)}::text[],
                  ${ms.map((m) => m.createdAt)}::int8[], ${ms.map((m) => m.updatedAt)}::int8[],
                  ${ms.map((m) => m.attempts)}::int4[], ${ms.map((m) => m.availableAt)}::int8[],
                  ${ms.map((m) => m.leaseUntil)}::int8[], ${ms.map((m) => m.lastError)}::text[])
                WITH ORDINALITY AS m(id, account_id, message, status, created_at, updated_at, attempts, available_at,
                  lease_until, last_error, n)
                ORDER BY n`
          ),
          ms.map(() => undefined)
        ),
      options
    )
    return MessageStore.MessageStore.of({
      insert: inserts.write,
      find: (id) =>
        Effect.map(
          db.run((sql) =>
            sql<Array<MessageRow>>`SELECT id, account_id, message, status, created_at, updated_at, attempts,
              available_at, lease_until, last_error FROM messages WHERE id = ${id}`
          ),
          stored
        ),
      claim: (now, leaseMillis) =>
        Effect.map(
          db.run((sql) =>
            sql<Array<MessageRow>>`
              UPDATE messages
              SET status = 'processing', attempts = attempts + 1, lease_until = ${now + leaseMillis}, updated_at = ${now}
              WHERE seq = (
                SELECT seq FROM messages
                WHERE status IN ('queued', 'processing')
                  AND ((status = 'queued' AND available_at <= ${now}) OR (status = 'processing' AND lease_until <= ${now}))
                ORDER BY seq LIMIT 1
                FOR UPDATE SKIP LOCKED)
              RETURNING id, account_id, message, status, created_at, updated_at, attempts, available_at, lease_until,
                last_error`
          ),
          stored
        ),
      markDelivered: (id, now) =>
        Effect.asVoid(db.run((sql) =>
          sql`UPDATE messages SET status = 'delivered', updated_at = ${now}, lease_until = 0, last_error = NULL
              WHERE id = ${id}`
        )),
      markRetry: (id, now, availableAt, error) =>
        Effect.asVoid(db.run((sql) =>
          sql`UPDATE messages SET status = 'queued', updated_at = ${now}, available_at = ${availableAt}, lease_until = 0,
                last_error = ${error} WHERE id = ${id}`
        )),
      markFailed: (id, now, error) =>
        Effect.asVoid(db.run((sql) =>
          sql`UPDATE messages SET status = 'failed', updated_at = ${now}, lease_until = 0, last_error = ${error}
              WHERE id = ${id}`
        )),
      nextClaimAt: Effect.map(
        db.run((sql) =>
          sql<Array<{ at: number | null }>>`
            SELECT min(CASE WHEN status = 'queued' THEN available_at ELSE lease_until END) AS at
            FROM messages WHERE status IN ('queued', 'processing')`
        ),
        (rows) => Option.fromNullable(rows[0]?.at)
      )
    })
  })

/** @category layers */
export const layer = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Layer.Layer<MessageStore.MessageStore, never, Database> => Layer.effect(MessageStore.MessageStore, make(options))
