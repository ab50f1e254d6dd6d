/**
 * `MessageStore` on PostgreSQL: the `messages` table is the outbox shared by every instance and
 * the truth `GET /messages/{id}` reads. Submissions that arrive together are inserted by one
 * statement (`WriteBatcher`). The claims asked for at once are one `WITH picked AS MATERIALIZED
 * (… FOR UPDATE SKIP LOCKED) UPDATE … FROM picked`: workers of every instance claim at once, never
 * the same row, without waiting for each other; a claimed row carries a lease, and a row whose
 * lease ran out (its worker or instance died) is claimable again: at-least-once across crashes. A
 * claim whose worker was interrupted while it waited is taken out of the batch if not yet sent, and
 * if it was, the row it got is handed back at once rather than left leased until the lease runs out.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { MessageStore } from "@petstore/core"
import { Database, statement } from "./Database.js"
import * as Table from "./internal/table.js"
import * as WriteBatcher from "./WriteBatcher.js"

/** `messages`, each column with the `StoredMessage` field it holds (`seq` is the table's): its statements' and `Import`'s. */
export const MESSAGES: Table.Table<MessageStore.StoredMessage> = {
  name: "messages",
  columns: [
    ["id", "text", "id"],
    ["account_id", "text", "accountId"],
    ["message", "text", "message"],
    ["status", "text", "status"],
    ["created_at", "int8", "createdAt"],
    ["updated_at", "int8", "updatedAt"],
    ["attempts", "int4", "attempts"],
    ["available_at", "int8", "availableAt"],
    ["lease_until", "int8", "leaseUntil"],
    ["last_error", "text", "lastError"]
  ]
}
const COLUMNS = Table.selectList(MESSAGES.columns)
const NAMES = Table.names(MESSAGES.columns)

const stored = (rows: ReadonlyArray<MessageStore.StoredMessage>) => Option.fromNullishOr(rows[0])

const INSERT_BATCH = statement(
  `INSERT INTO messages (${NAMES})
   SELECT ${NAMES} FROM unnest(${Table.arrays(MESSAGES.columns)}) WITH ORDINALITY AS m(${NAMES}, n)
   ORDER BY n`
)
const BY_ID = statement(`SELECT ${COLUMNS} FROM messages WHERE id = $1`)
// $1 now, $2 lease end, $3 how many, $4 accounts skipped: the claims of the workers asking at once, in one statement. The rows
// are picked once (a MATERIALIZED CTE; a subquery under IN may be evaluated again), so at most $3 of them.
// Due is one expression, not two OR-ed conditions: with it the planner walks `messages_pending` in `seq`
// order and stops at the $3-th row. With the OR it estimated one row and read every pending entry (a
// bitmap scan, then a sort), and a bitmap scan never marks the entries of rows since delivered as dead,
// so every claim read all of them again until a vacuum: with a history of 20,000 messages and no vacuum
// yet, 13,000 index entries a claim, and the mix's throughput fell by 40 % (docs/capacity.md). The
// expression is `MESSAGE_DUE` with its cases the other way round, on purpose: the same expression would
// let the planner take `messages_due` instead, which reads every message due and sorts them by `seq`
// (50,000 rows a claim after a burst, once the table has statistics).
const CLAIM = statement(
  `WITH picked AS MATERIALIZED (
     SELECT seq FROM messages
     WHERE status IN ('queued', 'processing') AND (CASE WHEN status = 'processing' THEN lease_until ELSE available_at END) <= $1
       AND NOT (account_id = ANY($4::text[]))
     ORDER BY seq LIMIT $3
     FOR UPDATE SKIP LOCKED)
   UPDATE messages m SET status = 'processing', attempts = m.attempts + 1, lease_until = $2, updated_at = $1
   FROM picked WHERE m.seq = picked.seq
   RETURNING m.seq, ${Table.selectList(MESSAGES.columns, "m")}`
)
// $1 ids, $2 the lease their claims set: rows claimed for workers that are gone, handed back (only if still theirs).
const RELEASE = statement(
  `UPDATE messages m SET status = 'queued', attempts = m.attempts - 1, lease_until = 0
   FROM unnest($1::text[], $2::int8[]) AS r(id, lease_until)
   WHERE m.id = r.id AND m.status = 'processing' AND m.lease_until = r.lease_until`
)
// A claim's outcome is written only while that claim still holds the row: still processing, under the
// lease it set ($1 the id, $2 that lease, $3 the time; DELIVERED does the same per row).
const CLAIMED = "status = 'processing' AND lease_until"
// $1 ids, $2 the leases of their claims, $3 their times (the join locks rows in plan order, whatever the arrays' order).
const DELIVERED = statement(
  `UPDATE messages m SET status = 'delivered', updated_at = d.now, lease_until = 0, last_error = NULL
   FROM unnest($1::text[], $2::int8[], $3::int8[]) AS d(id, lease, now)
   WHERE m.id = d.id AND m.status = 'processing' AND m.lease_until = d.lease`
)
const RETRY = statement(
  `UPDATE messages SET status = 'queued', updated_at = $3, available_at = $4, lease_until = 0, last_error = $5
   WHERE id = $1 AND ${CLAIMED} = $2`
)
const FAILED = statement(
  `UPDATE messages SET status = 'failed', updated_at = $3, lease_until = 0, last_error = $4 WHERE id = $1 AND ${CLAIMED} = $2`
)
const REQUEUE = statement(
  `UPDATE messages SET status = 'queued', updated_at = $2, available_at = $2, lease_until = 0
   WHERE id = $1 AND status IN ('delivered', 'failed')`
)
// $1 account, $2 status (null: any), $3 and $4 the position after which (null: from the start), $5 limit.
const BY_ACCOUNT = statement(
  `SELECT ${COLUMNS} FROM messages
   WHERE account_id = $1 AND ($2::text IS NULL OR status = $2)
     AND ($3::int8 IS NULL OR (created_at, id) > ($3, $4::text))
   ORDER BY created_at, id LIMIT $5`
)
// The instant a pending message may be claimed (a queued one's availability, a claimed one's lease end):
// the expression of index `messages_due` (migration 10, which writes it out), repeated exactly, as the
// planner uses an expression index only for the same expression.
const MESSAGE_DUE = "CASE WHEN status = 'queued' THEN available_at ELSE lease_until END"
// The first entry of `messages_due`.
const NEXT_CLAIM = statement(
  `SELECT ${MESSAGE_DUE} AS at FROM messages WHERE status IN ('queued', 'processing') ORDER BY ${MESSAGE_DUE} LIMIT 1`
)
const PENDING = statement(
  `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'processing')::int AS processing
   FROM messages WHERE status IN ('queued', 'processing')`
)

/** The message store on PostgreSQL. @category constructors */
export const make = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Effect.Effect<MessageStore.MessageStore["Service"], never, Database> =>
  Effect.map(Database, (db) => {
    const inserts = WriteBatcher.make<MessageStore.StoredMessage, void>(
      (ms) =>
        Effect.as(
          db.query(INSERT_BATCH, Table.columnValues(MESSAGES.columns, ms)),
          ms.map(() => undefined)
        ),
      options
    )
    // The group-commit metric (`onBatch`) counts submissions only: claims and results batch on their own.
    const { onBatch: _, ...sharing } = options
    // Rows claimed for workers that were interrupted meanwhile: queued again, the attempt not counted.
    // If this fails (the store is down), the lease running out hands them back instead.
    const release = (claimed: ReadonlyArray<Option.Option<MessageStore.StoredMessage>>) => {
      const rows = claimed.flatMap(Option.toArray)
      if (rows.length > 0) Effect.runFork(Effect.ignore(db.query(RELEASE, [rows.map((m) => m.id), rows.map((m) => m.leaseUntil)])))
    }
    // Claims asked for at once are one statement taking as many rows; each claim gets one of them, the
    // oldest to the first asked, or none when fewer were claimable. The rows are taken at the latest of
    // the claims' instants and leased to the latest of their lease ends (the same lease, a few ms apart).
    // The accounts skipped are those any of the claims skips.
    const claims = WriteBatcher.make<
      { readonly now: number; readonly leaseUntil: number; readonly skip: ReadonlyArray<string> },
      Option.Option<MessageStore.StoredMessage>
    >(
      (cs) =>
        Effect.map(
          db.query<MessageStore.StoredMessage & { seq: string | number }>(CLAIM, [
            Math.max(...cs.map((c) => c.now)),
            Math.max(...cs.map((c) => c.leaseUntil)),
            cs.length,
            [...new Set(cs.flatMap((c) => c.skip))]
          ]),
          (rows) => {
            const oldest = [...rows].sort((a, b) => Number(a.seq) - Number(b.seq))
            return cs.map((_, i) => Option.map(Option.fromNullishOr(oldest[i]), ({ seq: _seq, ...message }) => message))
          }
        ),
      { ...sharing, onAbandoned: release }
    )
    // Results of deliveries recorded at once are one statement.
    const deliveries = WriteBatcher.make<{ readonly id: string; readonly leaseUntil: number; readonly now: number }, void>(
      (ds) =>
        Effect.as(
          db.query(DELIVERED, [ds.map((d) => d.id), ds.map((d) => d.leaseUntil), ds.map((d) => d.now)]),
          ds.map(() => undefined)
        ),
      sharing
    )
    return MessageStore.MessageStore.of({
      insert: inserts.write,
      // An id with a NUL character cannot be stored, so it names no message (PostgreSQL would refuse the query).
      find: (id) => id.includes("\u0000") ? Effect.succeed(Option.none()) : Effect.map(db.query<MessageStore.StoredMessage>(BY_ID, [id]), stored),
      claim: (now, leaseMillis, skipAccounts = []) => claims.write({ now, leaseUntil: now + leaseMillis, skip: skipAccounts }),
      release: (id, leaseUntil) => Effect.asVoid(db.query(RELEASE, [[id], [leaseUntil]])),
      markDelivered: ({ id, leaseUntil }, now) => deliveries.write({ id, leaseUntil, now }),
      markRetry: ({ id, leaseUntil }, now, availableAt, error) =>
        Effect.asVoid(db.query(RETRY, [id, leaseUntil, now, availableAt, error])),
      markFailed: ({ id, leaseUntil }, now, error) => Effect.asVoid(db.query(FAILED, [id, leaseUntil, now, error])),
      requeue: (id, now) => id.includes("\u0000") ? Effect.void : Effect.asVoid(db.query(REQUEUE, [id, now])),
      listByAccount: ({ accountId, after, limit, status }) =>
        accountId.includes("\u0000")
          ? Effect.succeed([])
          : db.query<MessageStore.StoredMessage>(BY_ACCOUNT, [accountId, status ?? null, after?.createdAt ?? null, after?.id ?? null, limit]),
      nextClaimAt: Effect.map(db.query<{ at: number | null }>(NEXT_CLAIM, []), (rows) => Option.fromNullishOr(rows[0]?.at)),
      pendingCounts: Effect.map(db.query<MessageStore.PendingCounts>(PENDING, []), (rows) => rows[0] ?? { queued: 0, processing: 0 })
    })
  })

/** The message store on PostgreSQL, as a layer. @category layers */
export const layer = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Layer.Layer<MessageStore.MessageStore, never, Database> => Layer.effect(MessageStore.MessageStore, make(options))
