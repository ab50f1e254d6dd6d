/**
 * The statement webhook delivery writes through on PostgreSQL: the claims, the attempt rows and the
 * results (delivered, retry, failed) that workers ask for at once are ONE statement — a
 * data-modifying `WITH` that inserts the attempt rows, writes the results, then claims as many rows
 * as there are claims (`picked AS MATERIALIZED (… LIMIT n FOR UPDATE SKIP LOCKED)`, evaluated once,
 * so exactly n distinct rows at most). One round trip and one commit for a whole turn of the workers
 * instead of one per kind of write.
 *
 * A row whose result is written by the statement is never claimed by it (a statement must not
 * update a row twice). A claim whose worker was interrupted while it waited is taken out of the
 * batch if not yet sent; if it was, the row it got is handed back at once (queued, its attempt
 * uncounted) rather than left leased until the lease runs out.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Errors, MessageStore, WebhookAttempt } from "@petstore/core"
import { StoreRows, WebhookRows } from "@petstore/core"
import { Database, statement } from "./Database.js"
import * as WriteBatcher from "./WriteBatcher.js"

const COLUMNS = "id, account_id, message, status, created_at, updated_at, attempts, available_at, lease_until, last_error"

// $1–$8 the attempt rows (one array per column, inserted in the order given); $9–$13 the results
// (id, status, time, available at — null keeps it —, last error); $14 now, $15 lease end, $16 how many to claim.
const DELIVERY = statement(
  `WITH recorded AS (
     INSERT INTO webhook_attempts (${WebhookRows.ATTEMPT_COLUMNS})
     SELECT ${WebhookRows.ATTEMPT_COLUMNS} FROM unnest($1::text[], $2::text[], $3::int4[], $4::text[], $5::int8[], $6::int4[],
       $7::int4[], $8::text[]) WITH ORDINALITY AS a(${WebhookRows.ATTEMPT_COLUMNS}, n)
     ORDER BY n),
   results AS (
     UPDATE messages m SET status = r.status, updated_at = r.now, available_at = coalesce(r.available_at, m.available_at),
       lease_until = 0, last_error = r.error
     FROM unnest($9::text[], $10::text[], $11::int8[], $12::int8[], $13::text[]) AS r(id, status, now, available_at, error)
     WHERE m.id = r.id),
   picked AS MATERIALIZED (
     SELECT seq FROM messages
     WHERE status IN ('queued', 'processing')
       AND ((status = 'queued' AND available_at <= $14) OR (status = 'processing' AND lease_until <= $14))
       AND id <> ALL($9::text[])
     ORDER BY seq LIMIT $16
     FOR UPDATE SKIP LOCKED)
   UPDATE messages m SET status = 'processing', attempts = m.attempts + 1, lease_until = $15, updated_at = $14
   FROM picked WHERE m.seq = picked.seq
   RETURNING m.seq, ${COLUMNS.split(", ").map((c) => `m.${c}`).join(", ")}`
)
// $1 ids, $2 the lease their claims set: claims no one waits for any more, handed back (only if still theirs).
const RELEASE = statement(
  `UPDATE messages m SET status = 'queued', attempts = m.attempts - 1, lease_until = 0
   FROM unnest($1::text[], $2::int8[]) AS r(id, lease_until)
   WHERE m.id = r.id AND m.status = 'processing' AND m.lease_until = r.lease_until`
)

/** A message's result: delivered, back to queued (available at `availableAt`), or failed. */
export interface Result {
  readonly id: string
  readonly status: "delivered" | "queued" | "failed"
  readonly now: number
  readonly availableAt: number | null
  readonly error: string | null
}

type Item =
  | { readonly _tag: "Claim"; readonly now: number; readonly leaseUntil: number }
  | { readonly _tag: "Attempt"; readonly attempt: WebhookAttempt.WebhookAttempt }
  | { readonly _tag: "Result"; readonly result: Result }

type Claimed = Option.Option<MessageStore.StoredMessage>

/** @category services */
export class DeliveryBatch extends Context.Tag("@petstore/postgres/DeliveryBatch")<
  DeliveryBatch,
  {
    readonly claim: (now: number, leaseMillis: number) => Effect.Effect<Claimed, Errors.StoreUnavailable>
    readonly record: (attempt: WebhookAttempt.WebhookAttempt) => Effect.Effect<void, Errors.StoreUnavailable>
    readonly result: (result: Result) => Effect.Effect<void, Errors.StoreUnavailable>
  }
>() {}

const NO_CLAIM: Claimed = Option.none()

/** @category constructors */
export const make = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Effect.Effect<DeliveryBatch["Type"], never, Database> =>
  Effect.map(Database, (db) => {
    // Claims asked for at once take as many rows; each claim gets one of them, the oldest to the first
    // asked, or none when fewer were claimable. The rows are taken at the latest of the claims' instants
    // and leased to the latest of their lease ends (the same lease, a few ms apart).
    const commit = (items: ReadonlyArray<Item>) => {
      const attempts: Array<ReadonlyArray<string | number | null>> = []
      const results: Array<Result> = []
      let claims = 0
      let now = 0
      let leaseUntil = 0
      for (const item of items) {
        if (item._tag === "Attempt") attempts.push(WebhookRows.attemptValues(item.attempt))
        else if (item._tag === "Result") results.push(item.result)
        else {
          claims++
          now = Math.max(now, item.now)
          leaseUntil = Math.max(leaseUntil, item.leaseUntil)
        }
      }
      const attemptColumns = Array.from({ length: 8 }, (_, c) => attempts.map((row) => row[c]))
      return Effect.map(
        db.query<StoreRows.MessageRow & { seq: string | number }>(DELIVERY, [
          ...attemptColumns,
          results.map((r) => r.id),
          results.map((r) => r.status),
          results.map((r) => r.now),
          results.map((r) => r.availableAt),
          results.map((r) => r.error),
          now,
          leaseUntil,
          claims
        ]),
        (rows) => {
          const oldest = rows.length > 1 ? [...rows].sort((a, b) => Number(a.seq) - Number(b.seq)) : rows
          let next = 0
          return items.map((item): Claimed | undefined => {
            if (item._tag !== "Claim") return undefined
            const row = oldest[next++]
            return row === undefined ? NO_CLAIM : Option.some(StoreRows.toStoredMessage(row))
          })
        }
      )
    }
    const release = (claimed: ReadonlyArray<Claimed | undefined>) => {
      const rows = claimed.flatMap((c) => c !== undefined && Option.isSome(c) ? [c.value] : [])
      if (rows.length === 0) return
      // If this fails (the store is down) the lease running out hands the rows back instead.
      Effect.runFork(Effect.ignore(db.query(RELEASE, [rows.map((m) => m.id), rows.map((m) => m.leaseUntil)])))
    }
    const batch = WriteBatcher.make<Item, Claimed | undefined>(commit, { ...options, onAbandoned: release })
    return DeliveryBatch.of({
      claim: (now, leaseMillis) => Effect.map(batch.write({ _tag: "Claim", now, leaseUntil: now + leaseMillis }), (c) => c ?? NO_CLAIM),
      record: (attempt) => Effect.asVoid(batch.write({ _tag: "Attempt", attempt })),
      result: (result) => Effect.asVoid(batch.write({ _tag: "Result", result }))
    })
  })

/** @category layers */
export const layer = (options: Partial<WriteBatcher.WriteBatcherOptions> = {}): Layer.Layer<DeliveryBatch, never, Database> =>
  Layer.effect(DeliveryBatch, make(options))
