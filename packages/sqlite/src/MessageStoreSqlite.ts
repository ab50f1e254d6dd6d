/**
 * `MessageStore` on SQLite: the `messages` table is the outbox and the truth `GET /messages/{id}`
 * reads. A claim is one `UPDATE … RETURNING` on the oldest claimable row, so two claimers (fibers
 * or processes) never get the same message; a claimed row carries a lease, and a row whose lease
 * ran out (its worker died with the process) is claimable again: at-least-once across crashes.
 *
 * @since 1.0.0
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { type Message, MessageStore } from "@petstore/core"
import { Database } from "./GroupCommit.js"

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

/** @category constructors */
export const make: Effect.Effect<MessageStore.MessageStore["Type"], never, SqlClient.SqlClient | Database> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const db = yield* Database
  const COLUMNS = sql.literal(
    "id, account_id, message, status, created_at, updated_at, attempts, available_at, lease_until, last_error"
  )

  return MessageStore.MessageStore.of({
    insert: (m) =>
      db.write(
        sql`INSERT INTO messages (id, account_id, message, status, created_at, updated_at, attempts, available_at, lease_until, last_error)
            VALUES (${m.id}, ${m.accountId}, ${m.message}, ${m.status}, ${m.createdAt}, ${m.updatedAt}, ${m.attempts}, ${m.availableAt}, ${m.leaseUntil}, ${m.lastError})`
      ).pipe(Effect.asVoid),
    find: (id) =>
      db.read(sql<MessageRow>`SELECT ${COLUMNS} FROM messages WHERE id = ${id}`).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toStored))
      ),
    claim: (now, leaseMillis) =>
      db.write(
        sql<MessageRow>`UPDATE messages
            SET status = 'processing', attempts = attempts + 1, lease_until = ${now + leaseMillis}, updated_at = ${now}
            WHERE seq = (
              SELECT seq FROM messages INDEXED BY messages_pending
              WHERE status IN ('queued', 'processing')
                AND ((status = 'queued' AND available_at <= ${now}) OR (status = 'processing' AND lease_until <= ${now}))
              ORDER BY seq LIMIT 1)
            RETURNING ${COLUMNS}`
      ).pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toStored))),
    markDelivered: (id, now) =>
      db.write(
        sql`UPDATE messages SET status = 'delivered', updated_at = ${now}, lease_until = 0, last_error = NULL WHERE id = ${id}`
      ).pipe(Effect.asVoid),
    markRetry: (id, now, availableAt, error) =>
      db.write(
        sql`UPDATE messages SET status = 'queued', updated_at = ${now}, available_at = ${availableAt}, lease_until = 0, last_error = ${error}
            WHERE id = ${id}`
      ).pipe(Effect.asVoid),
    markFailed: (id, now, error) =>
      db.write(
        sql`UPDATE messages SET status = 'failed', updated_at = ${now}, lease_until = 0, last_error = ${error} WHERE id = ${id}`
      ).pipe(Effect.asVoid),
    nextClaimAt: db.read(
      sql<{ next: number | null }>`SELECT min(CASE WHEN status = 'queued' THEN available_at ELSE lease_until END) AS next
          FROM messages INDEXED BY messages_pending WHERE status IN ('queued', 'processing')`
    ).pipe(Effect.map((rows) => Option.fromNullable(rows[0]?.next ?? null)))
  })
})

/** @category layers */
export const layer: Layer.Layer<MessageStore.MessageStore, never, SqlClient.SqlClient | Database> = Layer.effect(
  MessageStore.MessageStore,
  make
)
