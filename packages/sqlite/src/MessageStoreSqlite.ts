/**
 * `MessageStore` on SQLite: the `messages` table is the outbox and the truth `GET /messages/{id}`
 * reads. A claim is one `UPDATE … RETURNING` on the oldest claimable row, so two claimers (fibers
 * or processes) never get the same message; a claimed row carries a lease, and a row whose lease
 * ran out (its worker died with the process) is claimable again: at-least-once across crashes.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { MessageStore } from "@petstore/core"
import * as Columns from "./internal/columns.js"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"

/** The columns of `messages`, each with the `StoredMessage` field it holds (`seq` is the table's). */
const MESSAGE_FIELDS: ReadonlyArray<Columns.Column<MessageStore.StoredMessage>> = [
  ["id", "id"],
  ["account_id", "accountId"],
  ["message", "message"],
  ["status", "status"],
  ["created_at", "createdAt"],
  ["updated_at", "updatedAt"],
  ["attempts", "attempts"],
  ["available_at", "availableAt"],
  ["lease_until", "leaseUntil"],
  ["last_error", "lastError"]
]

/** What every read of `messages` selects (here and in `Export`): a row is a `StoredMessage`. */
export const MESSAGE_COLUMNS = Columns.selectList(MESSAGE_FIELDS)

/** The statement that inserts a message (shared with keyed creates, which insert it with their record). */
export const insertMessageStatement = (connection: Connection["Service"]) =>
  connection.prepare(`INSERT INTO messages (${Columns.names(MESSAGE_FIELDS)}) VALUES (${Columns.placeholders(MESSAGE_FIELDS)})`)

/** The values of `insertMessageStatement` for `m`, in its columns' order. */
export const messageValues = (m: MessageStore.StoredMessage) => Columns.values(MESSAGE_FIELDS, m)

/** The message store on SQLite. @category constructors */
export const make: Effect.Effect<MessageStore.MessageStore["Service"], never, Connection | Database> = Effect.gen(function*() {
  const connection = yield* Connection
  const db = yield* Database
  const insert = insertMessageStatement(connection)
  const byId = connection.prepare(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = ?`)
  const claim = connection.prepare(
    `UPDATE messages
     SET status = 'processing', attempts = attempts + 1, lease_until = @leaseUntil, updated_at = @now
     WHERE seq = (
       SELECT seq FROM messages INDEXED BY messages_pending
       WHERE status IN ('queued', 'processing')
         AND ((status = 'queued' AND available_at <= @now) OR (status = 'processing' AND lease_until <= @now))
         AND account_id NOT IN (SELECT value FROM json_each(@skip))
       ORDER BY seq LIMIT 1)
     RETURNING ${MESSAGE_COLUMNS}`
  )
  const release = connection.prepare(
    "UPDATE messages SET status = 'queued', attempts = attempts - 1, lease_until = 0 WHERE id = ? AND status = 'processing' AND lease_until = ?"
  )
  // A claim's outcome, written only while that claim still holds the row (`@id` leased until `@leaseUntil`).
  const outcome = (set: string) =>
    connection.prepare(
      `UPDATE messages SET ${set}, updated_at = @now, lease_until = 0
       WHERE id = @id AND status = 'processing' AND lease_until = @leaseUntil`
    )
  const delivered = outcome("status = 'delivered', last_error = NULL")
  const retry = outcome("status = 'queued', available_at = @availableAt, last_error = @error")
  const failed = outcome("status = 'failed', last_error = @error")
  const requeue = connection.prepare(
    "UPDATE messages SET status = 'queued', updated_at = @now, available_at = @now, lease_until = 0 WHERE id = @id AND status IN ('delivered', 'failed')"
  )
  // The four listings of an account's messages: with or without a status, from the start or after a position.
  const listing = (status: boolean, after: boolean) =>
    connection.prepare(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE account_id = @accountId${status ? " AND status = @status" : ""}
       ${after ? "AND (created_at, id) > (@createdAt, @id)" : ""} ORDER BY created_at, id LIMIT @limit`
    )
  const listings = [listing(false, false), listing(false, true), listing(true, false), listing(true, true)] as const
  const nextClaim = connection.prepare(
    `SELECT min(CASE WHEN status = 'queued' THEN available_at ELSE lease_until END)
     FROM messages INDEXED BY messages_pending WHERE status IN ('queued', 'processing')`
  ).pluck()
  const pending = connection.prepare(
    `SELECT count(*) FILTER (WHERE status = 'queued') AS queued, count(*) FILTER (WHERE status = 'processing') AS processing
     FROM messages INDEXED BY messages_pending WHERE status IN ('queued', 'processing')`
  )

  const stored = (row: unknown) => Option.fromNullishOr(row as MessageStore.StoredMessage | undefined)

  return MessageStore.MessageStore.of({
    insert: (m) => db.write(() => void insert.run(...messageValues(m))),
    find: (id) => db.read(() => stored(byId.get(id))),
    claim: (now, leaseMillis, skipAccounts = []) =>
      db.write(() => stored(claim.get({ now, leaseUntil: now + leaseMillis, skip: JSON.stringify(skipAccounts) }))),
    release: (id, leaseUntil) => db.write(() => void release.run(id, leaseUntil)),
    markDelivered: ({ id, leaseUntil }, now) => db.write(() => void delivered.run({ id, leaseUntil, now })),
    markRetry: ({ id, leaseUntil }, now, availableAt, error) =>
      db.write(() => void retry.run({ id, leaseUntil, now, availableAt, error })),
    markFailed: ({ id, leaseUntil }, now, error) => db.write(() => void failed.run({ id, leaseUntil, now, error })),
    requeue: (id, now) => db.write(() => void requeue.run({ id, now })),
    listByAccount: ({ accountId, after, limit, status }) =>
      db.read(() =>
        (listings[(status === undefined ? 0 : 2) + (after === undefined ? 0 : 1)]!.all({
          accountId,
          limit,
          ...(status === undefined ? {} : { status }),
          ...(after === undefined ? {} : { createdAt: after.createdAt, id: after.id })
        }) as Array<MessageStore.StoredMessage>)
      ),
    nextClaimAt: db.read(() => Option.fromNullishOr(nextClaim.get() as number | null | undefined)),
    pendingCounts: db.read(() => pending.get() as MessageStore.PendingCounts)
  })
})

/** The message store on SQLite, as a layer. @category layers */
export const layer: Layer.Layer<MessageStore.MessageStore, never, Connection | Database> = Layer.effect(
  MessageStore.MessageStore,
  make
)
