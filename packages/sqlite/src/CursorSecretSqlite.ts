/**
 * The page-cursor signer under a secret kept in the database, so cursors handed out before a
 * restart still work after it (and are refused by any other database's server).
 *
 * @since 1.0.0
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { type Errors, PageCursor, SecureRandom } from "@petstore/core"
import { Database } from "./GroupCommit.js"

const SECRET_NAME = "cursor-hmac"

/**
 * The stored secret, created on first use. `INSERT OR IGNORE` then read: when two processes start
 * at once, both end up with the one that was stored first.
 */
export const loadOrCreate: Effect.Effect<
  Uint8Array,
  Errors.StoreUnavailable,
  SqlClient.SqlClient | Database | SecureRandom.SecureRandom
> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const db = yield* Database
  const fresh = yield* Effect.flatMap(SecureRandom.SecureRandom, (random) => random.bytes(32))
  yield* db.write(sql`INSERT OR IGNORE INTO secrets (name, value) VALUES (${SECRET_NAME}, ${fresh})`)
  const rows = yield* db.read(sql<{ value: Uint8Array }>`SELECT value FROM secrets WHERE name = ${SECRET_NAME}`)
  return new Uint8Array(rows[0]!.value)
})

/** @category layers */
export const layer: Layer.Layer<
  PageCursor.CursorSigner,
  Errors.StoreUnavailable,
  SqlClient.SqlClient | Database | SecureRandom.SecureRandom
> = Layer.effect(PageCursor.CursorSigner, Effect.map(loadOrCreate, PageCursor.make))
