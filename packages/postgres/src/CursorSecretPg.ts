/**
 * The page-cursor signer under a secret kept in the database, shared by every instance: a cursor
 * issued by one instance is honoured by all of them, also after restarts.
 *
 * @since 1.0.0
 */
import { Effect, Layer } from "effect"
import { type Errors, PageCursor, SecureRandom } from "@petstore/core"
import { Database } from "./Database.js"

const SECRET_NAME = "cursor-hmac"

/** The stored secret, created on first use; instances starting at once all end up with the first one stored. */
export const loadOrCreate: Effect.Effect<Uint8Array, Errors.StoreUnavailable, Database | SecureRandom.SecureRandom> = Effect
  .gen(function*() {
    const db = yield* Database
    const fresh = yield* Effect.flatMap(SecureRandom.SecureRandom, (random) => random.bytes(32))
    const rows = yield* db.run((sql) =>
      sql<Array<{ value: Uint8Array }>>`
        WITH inserted AS (
          INSERT INTO secrets (name, value) VALUES (${SECRET_NAME}, ${Buffer.from(fresh)}) ON CONFLICT (name) DO NOTHING
          RETURNING value
        )
        SELECT value FROM inserted UNION ALL SELECT value FROM secrets WHERE name = ${SECRET_NAME}`
    )
    return new Uint8Array(rows[0]!.value)
  })

/** @category layers */
export const layer: Layer.Layer<PageCursor.CursorSigner, Errors.StoreUnavailable, Database | SecureRandom.SecureRandom> =
  Layer.effect(PageCursor.CursorSigner, Effect.map(loadOrCreate, PageCursor.make))
