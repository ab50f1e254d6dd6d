/**
 * `MessageStore` on PostgreSQL: the `messages` table is the outbox shared by every instance and
 * the truth `GET /messages/{id}` reads. Submissions that arrive together are inserted by one
 * statement (`WriteBatcher`). Claims and results go through `DeliveryBatch`, with the attempt rows:
 * the claims asked for at once are one `… FOR UPDATE SKIP LOCKED` taking as many rows, so workers of
 * every instance claim at once, never the same row, without waiting for each other; a claimed row
 * carries a lease, and a row whose lease ran out (its worker or instance died) is claimable again:
 * at-least-once across crashes.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { MessageStore, StoreRows } from "@petstore/core"
import { Database, statement } from "./Database.js"
import { DeliveryBatch } from "./DeliveryBatch.js"
import * as WriteBatcher from "./WriteBatcher.js"

const stored = (rows: ReadonlyArray<StoreRows.MessageRow>) => Option.map(Option.fromNullable(rows[0]), StoreRows.toStoredMessage)

const COLUMNS = "id, account_id, message, status, created_at, updated_at, attempts, available_at, lease_until, last_error"
const INSERT_BATCH = statement(
  `INSERT INTO messages (${COLUMNS})
   SELECT ${COLUMNS} FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::int8[], $7::int4[],
     $8::int8[], $9::int8[], $10::text[]) WITH ORDINALITY AS m(${COLUMNS}, n)
   ORDER BY n`
)
const BY_ID = statement(`SELECT ${COLUMNS} FROM messages WHERE id = $1`)
const NEXT_CLAIM = statement(
  `SELECT min(CASE WHEN status = 'queued' THEN available_at ELSE lease_until END) AS at
   FROM messages WHERE status IN ('queued', 'processing')`
)
const PENDING = statement(
  `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'processing')::int AS processing
   FROM messages WHERE status IN ('queued', 'processing')`
)

/** @category constructors */
export const make = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Effect.Effect<MessageStore.MessageStore["Type"], never, Database | DeliveryBatch> =>
  Effect.map(Effect.zip(Database, DeliveryBatch), ([db, delivery]) => {
    const inserts = WriteBatcher.make<MessageStore.StoredMessage, void>(
      (ms) =>
        Effect.as(
          db.query(INSERT_BATCH, [
            ms.map((m) => m.id),
            ms.map((m) => m.accountId),
            ms.map((m) => m.message),
            ms.map((m) => m.status),
            ms.map((m) => m.createdAt),
            ms.map((m) => m.updatedAt),
            ms.map((m) => m.attempts),
            ms.map((m) => m.availableAt),
            ms.map((m) => m.leaseUntil),
            ms.map((m) => m.lastError)
          ]),
          ms.map(() => undefined)
        ),
      options
    )
    return MessageStore.MessageStore.of({
      insert: inserts.write,
      // An id with a NUL character cannot be stored, so it names no message (PostgreSQL would refuse the query).
      find: (id) => id.includes("\u0000") ? Effect.succeed(Option.none()) : Effect.map(db.query<StoreRows.MessageRow>(BY_ID, [id]), stored),
      claim: delivery.claim,
      markDelivered: (id, now) => delivery.result({ id, status: "delivered", now, availableAt: null, error: null }),
      markRetry: (id, now, availableAt, error) => delivery.result({ id, status: "queued", now, availableAt, error }),
      markFailed: (id, now, error) => delivery.result({ id, status: "failed", now, availableAt: null, error }),
      nextClaimAt: Effect.map(db.query<{ at: number | null }>(NEXT_CLAIM, []), (rows) => Option.fromNullable(rows[0]?.at)),
      pendingCounts: Effect.map(db.query<MessageStore.PendingCounts>(PENDING, []), (rows) => rows[0] ?? { queued: 0, processing: 0 })
    })
  })

/** @category layers */
export const layer = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Layer.Layer<MessageStore.MessageStore, never, Database | DeliveryBatch> => Layer.effect(MessageStore.MessageStore, make(options))
