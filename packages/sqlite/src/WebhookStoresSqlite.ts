/**
 * `WebhookEndpointStore` and `WebhookAttemptStore` on SQLite: one row per account's endpoint, and the
 * attempt log append-only. The failing streak is updated in one statement, so the rule holds when
 * several workers record outcomes at once.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { WebhookAttempt, WebhookEndpoint, WebhookRows } from "@petstore/core"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"

/** The webhook endpoint store on SQLite. @category constructors */
export const makeEndpoints: Effect.Effect<WebhookEndpoint.WebhookEndpointStore["Service"], never, Connection | Database> = Effect.gen(
  function*() {
    const connection = yield* Connection
    const db = yield* Database
    const byAccount = connection.prepare(`SELECT ${WebhookRows.ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = ?`)
    const upsert = connection.prepare(
      `INSERT OR REPLACE INTO webhook_endpoints (${WebhookRows.ENDPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
    )
    const remove = connection.prepare("DELETE FROM webhook_endpoints WHERE account_id = ?")
    const after = connection.prepare(
      `SELECT ${WebhookRows.ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id > ? ORDER BY account_id LIMIT ?`
    )
    const succeeded = connection.prepare(
      "UPDATE webhook_endpoints SET failing_since = NULL WHERE account_id = ? AND failing_since IS NOT NULL"
    )
    const find = (accountId: string) =>
      Option.map(
        Option.fromNullishOr(byAccount.get(accountId) as WebhookRows.EndpointRow | undefined),
        WebhookRows.toEndpoint
      )
    return WebhookEndpoint.WebhookEndpointStore.of({
      find: (accountId) => db.read(() => find(accountId)),
      page: (afterAccountId, limit) =>
        db.read(() => (after.all(afterAccountId ?? "", limit) as Array<WebhookRows.EndpointRow>).map(WebhookRows.toEndpoint)),
      put: (endpoint) => db.write(() => void upsert.run(...WebhookRows.endpointValues(endpoint))),
      remove: (accountId) => db.write(() => remove.run(accountId).changes > 0),
      recordSuccess: (accountId) => db.write(() => void succeeded.run(accountId)),
      // Read and written inside one write of the group commit: no other write comes between.
      recordFailure: (accountId, now, disableAfterMillis, reason) =>
        db.write(() => {
          const current = find(accountId)
          if (Option.isNone(current)) return "failing" as const
          const [next, change] = WebhookEndpoint.afterFailure(current.value, now, disableAfterMillis, reason)
          if (next !== current.value) upsert.run(...WebhookRows.endpointValues(next))
          return change
        })
    })
  }
)

/** The webhook attempt store on SQLite. @category constructors */
export const makeAttempts: Effect.Effect<WebhookAttempt.WebhookAttemptStore["Service"], never, Connection | Database> = Effect.gen(
  function*() {
    const connection = yield* Connection
    const db = yield* Database
    const insert = connection.prepare(`INSERT INTO webhook_attempts (${WebhookRows.ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
    const byMessage = connection.prepare(
      `SELECT ${WebhookRows.ATTEMPT_COLUMNS} FROM webhook_attempts WHERE message_id = ? ORDER BY seq`
    )
    const since = connection.prepare(
      `SELECT message_id FROM webhook_attempts WHERE account_id = ? AND started_at >= ?
       GROUP BY message_id ORDER BY min(started_at), min(seq)`
    ).pluck()
    return WebhookAttempt.WebhookAttemptStore.of({
      record: (attempt) => db.write(() => void insert.run(...WebhookRows.attemptValues(attempt))),
      list: (messageId) => db.read(() => (byMessage.all(messageId) as Array<WebhookRows.AttemptRow>).map(WebhookRows.toAttempt)),
      messagesSince: (accountId, from) => db.read(() => since.all(accountId, from) as Array<string>)
    })
  }
)

/** Both stores on the database. */
export const layer: Layer.Layer<
  WebhookEndpoint.WebhookEndpointStore | WebhookAttempt.WebhookAttemptStore,
  never,
  Connection | Database
> = Layer.merge(
  Layer.effect(WebhookEndpoint.WebhookEndpointStore, makeEndpoints),
  Layer.effect(WebhookAttempt.WebhookAttemptStore, makeAttempts)
)
