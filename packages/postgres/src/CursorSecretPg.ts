/**
 * The page-cursor signer under a secret kept in the database, shared by every instance: a cursor
 * issued by one instance is honoured by all of them, also after restarts.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Errors, PageCursor, SecureRandom } from "@petstore/core"
import { Database, statement } from "./Database.js"

/** The name of the cursor secret in the database. */
export const SECRET_NAME = "cursor-hmac"

// Inserted if absent, then read by a second statement (a snapshot of its own, which sees the row
// another instance starting at the same time committed first): all end up with the first one stored.
const CREATE = statement("INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING")
const LOAD = statement("SELECT value FROM secrets WHERE name = $1")

/** The stored secret, created on first use. */
export const loadOrCreate: Effect.Effect<Uint8Array, Errors.StoreUnavailable, Database | SecureRandom.SecureRandom> = Effect
  .gen(function*() {
    const db = yield* Database
    const fresh = yield* Effect.flatMap(SecureRandom.SecureRandom, (random) => random.bytes(32))
    yield* db.query(CREATE, [SECRET_NAME, Buffer.from(fresh)])
    const rows = yield* db.query<{ value: Buffer }>(LOAD, [SECRET_NAME])
    return new Uint8Array(rows[0]!.value)
  })

/** The cursor signer keyed with the secret kept in the database (made at first use). @category layers */
export const layer: Layer.Layer<PageCursor.CursorSigner, Errors.StoreUnavailable, Database | SecureRandom.SecureRandom> =
  Layer.effect(PageCursor.CursorSigner, Effect.map(loadOrCreate, PageCursor.make))
