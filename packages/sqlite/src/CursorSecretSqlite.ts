/**
 * The page-cursor signer under a secret kept in the database, so cursors handed out before a
 * restart still work after it (and are refused by any other database's server).
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Errors, PageCursor, SecureRandom } from "@petstore/core"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"

const SECRET_NAME = "cursor-hmac"

/**
 * The stored secret, created on first use. `INSERT OR IGNORE` then read: when two processes start
 * at once, both end up with the one that was stored first.
 */
export const loadOrCreate: Effect.Effect<
  Uint8Array,
  Errors.StoreUnavailable,
  Connection | Database | SecureRandom.SecureRandom
> = Effect.gen(function*() {
  const connection = yield* Connection
  const db = yield* Database
  const insert = connection.prepare("INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)")
  const select = connection.prepare("SELECT value FROM secrets WHERE name = ?").pluck()
  const fresh = yield* Effect.flatMap(SecureRandom.SecureRandom, (random) => random.bytes(32))
  yield* db.write(() => insert.run(SECRET_NAME, Buffer.from(fresh)))
  const stored = yield* db.read(() => select.get(SECRET_NAME) as Uint8Array)
  return new Uint8Array(stored)
})

/** The cursor signer keyed with the secret kept in the database (made at first use). @category layers */
export const layer: Layer.Layer<
  PageCursor.CursorSigner,
  Errors.StoreUnavailable,
  Connection | Database | SecureRandom.SecureRandom
> = Layer.effect(PageCursor.CursorSigner, Effect.map(loadOrCreate, PageCursor.make))
