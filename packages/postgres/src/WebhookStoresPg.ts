/**
 * `WebhookEndpointStore` and `WebhookAttemptStore` on PostgreSQL, shared by every instance: one row
 * per account's endpoint, the attempt log append-only (attempts recorded at once are inserted by one
 * statement). The failing streak is updated by one
 * statement holding the row's lock, so instances recording outcomes at once apply the rule in turn.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { WebhookAttempt, WebhookEndpoint, WebhookRows } from "@petstore/core"
import { Database, statement } from "./Database.js"
import * as WriteBatcher from "./WriteBatcher.js"

// $1 the accounts of the lookups asked for at once (one statement for them all).
const FIND = statement(`SELECT ${WebhookRows.ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = ANY($1::text[])`)
const UPSERT = statement(
  `INSERT INTO webhook_endpoints (${WebhookRows.ENDPOINT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
   ON CONFLICT (account_id) DO UPDATE SET url = excluded.url, secrets = excluded.secrets, created_at = excluded.created_at,
     updated_at = excluded.updated_at, failing_since = excluded.failing_since, disabled_at = excluded.disabled_at,
     disabled_reason = excluded.disabled_reason`
)
const PAGE = statement(
  `SELECT ${WebhookRows.ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id > $1 ORDER BY account_id LIMIT $2`
)
const REMOVE = statement("DELETE FROM webhook_endpoints WHERE account_id = $1 RETURNING account_id")
const SUCCEEDED = statement("UPDATE webhook_endpoints SET failing_since = NULL WHERE account_id = $1 AND failing_since IS NOT NULL")
// $1 account, $2 now, $3 disable after (ms), $4 reason. The rule of `WebhookEndpoint.afterFailure`.
const FAILED = statement(
  `WITH old AS (SELECT account_id, failing_since, disabled_at FROM webhook_endpoints WHERE account_id = $1 FOR UPDATE)
   UPDATE webhook_endpoints e SET
     failing_since = CASE WHEN old.disabled_at IS NULL THEN coalesce(old.failing_since, $2::int8) ELSE e.failing_since END,
     disabled_at = CASE WHEN old.disabled_at IS NULL AND $2::int8 - coalesce(old.failing_since, $2::int8) >= $3::int8
       THEN $2::int8 ELSE e.disabled_at END,
     disabled_reason = CASE WHEN old.disabled_at IS NULL AND $2::int8 - coalesce(old.failing_since, $2::int8) >= $3::int8
       THEN $4 ELSE e.disabled_reason END
   FROM old WHERE e.account_id = old.account_id
   RETURNING old.disabled_at IS NULL AND e.disabled_at IS NOT NULL AS disabled_now`
)
// One array per column; the attempts recorded at once are one statement, inserted in the order given.
const RECORD = statement(
  `INSERT INTO webhook_attempts (${WebhookRows.ATTEMPT_COLUMNS})
   SELECT ${WebhookRows.ATTEMPT_COLUMNS} FROM unnest($1::text[], $2::text[], $3::int4[], $4::text[], $5::int8[], $6::int4[],
     $7::int4[], $8::text[]) WITH ORDINALITY AS a(${WebhookRows.ATTEMPT_COLUMNS}, n)
   ORDER BY n`
)
const LIST = statement(`SELECT ${WebhookRows.ATTEMPT_COLUMNS} FROM webhook_attempts WHERE message_id = $1 ORDER BY seq`)
const SINCE = statement(
  `SELECT message_id FROM webhook_attempts WHERE account_id = $1 AND started_at >= $2
   GROUP BY message_id ORDER BY min(started_at), min(seq)`
)

// A NUL character cannot be stored, so an id with one names nothing (PostgreSQL would refuse the query).
const storable = (id: string) => !id.includes("\u0000")

/** The webhook endpoint store on PostgreSQL. @category constructors */
export const makeEndpoints: Effect.Effect<WebhookEndpoint.WebhookEndpointStore["Service"], never, Database> = Effect.map(
  Database,
  (db) => {
    // Every delivery looks its endpoint up: the lookups asked for at once are one read, made after
    // each of them was asked (so each sees what was written before it).
    const lookups = WriteBatcher.make<string, Option.Option<WebhookEndpoint.WebhookEndpoint>>((accountIds) =>
      Effect.map(db.query<WebhookRows.EndpointRow>(FIND, [[...new Set(accountIds)]]), (rows) => {
        const byAccount = new Map(rows.map((row) => [row.account_id, WebhookRows.toEndpoint(row)]))
        return accountIds.map((accountId) => Option.fromNullishOr(byAccount.get(accountId)))
      })
    )
    return WebhookEndpoint.WebhookEndpointStore.of({
      find: (accountId) => storable(accountId) ? lookups.write(accountId) : Effect.succeed(Option.none()),
      page: (afterAccountId, limit) =>
        Effect.map(
          db.query<WebhookRows.EndpointRow>(PAGE, [afterAccountId ?? "", limit]),
          (rows) => rows.map(WebhookRows.toEndpoint)
        ),
      put: (endpoint) => Effect.asVoid(db.query(UPSERT, WebhookRows.endpointValues(endpoint))),
      remove: (accountId) =>
        storable(accountId) ? Effect.map(db.query(REMOVE, [accountId]), (rows) => rows.length > 0) : Effect.succeed(false),
      recordSuccess: (accountId) => Effect.asVoid(db.query(SUCCEEDED, [accountId])),
      recordFailure: (accountId, now, disableAfterMillis, reason) =>
        Effect.map(
          db.query<{ disabled_now: boolean }>(FAILED, [accountId, now, disableAfterMillis, reason]),
          (rows): WebhookEndpoint.StreakChange => rows[0]?.disabled_now === true ? "disabled" : "failing"
        )
    })
  }
)

/** The webhook attempt store on PostgreSQL. @category constructors */
export const makeAttempts: Effect.Effect<WebhookAttempt.WebhookAttemptStore["Service"], never, Database> = Effect.map(
  Database,
  (db) => {
    const records = WriteBatcher.make<WebhookAttempt.WebhookAttempt, void>((attempts) => {
      const rows = attempts.map(WebhookRows.attemptValues)
      const columns = rows[0]!.map((_, c) => rows.map((row) => row[c]))
      return Effect.as(db.query(RECORD, columns), attempts.map(() => undefined))
    })
    return WebhookAttempt.WebhookAttemptStore.of({
      record: records.write,
      list: (messageId) =>
        storable(messageId)
          ? Effect.map(db.query<WebhookRows.AttemptRow>(LIST, [messageId]), (rows) => rows.map(WebhookRows.toAttempt))
          : Effect.succeed([]),
      messagesSince: (accountId, since) =>
        storable(accountId)
          ? Effect.map(db.query<{ message_id: string }>(SINCE, [accountId, since]), (rows) => rows.map((r) => r.message_id))
          : Effect.succeed([])
    })
  }
)

/** Both stores on the database. */
export const layer: Layer.Layer<WebhookEndpoint.WebhookEndpointStore | WebhookAttempt.WebhookAttemptStore, never, Database> =
  Layer.merge(
    Layer.effect(WebhookEndpoint.WebhookEndpointStore, makeEndpoints),
    Layer.effect(WebhookAttempt.WebhookAttemptStore, makeAttempts)
  )
