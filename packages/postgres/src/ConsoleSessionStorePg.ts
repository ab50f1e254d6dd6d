/**
 * `ConsoleSessionStore` on PostgreSQL: the operator console's sessions by the hash of their id,
 * with their end, shared by every instance: a session opened on one is valid on all, and a
 * sign-out on one ends it on all.
 *
 * @since 2.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ConsoleSessionStore } from "@petstore/core"
import { Database, statement } from "./Database.js"

const DROP_ENDED = statement("DELETE FROM console_sessions WHERE expires_at <= $1")
const INSERT = statement(
  "INSERT INTO console_sessions (id_hash, expires_at) VALUES ($1, $2) ON CONFLICT (id_hash) DO UPDATE SET expires_at = excluded.expires_at"
)
const SELECT = statement("SELECT expires_at::float8 AS \"expiresAt\" FROM console_sessions WHERE id_hash = $1 AND expires_at > $2")
const REMOVE = statement("DELETE FROM console_sessions WHERE id_hash = $1")

/** The console's sessions on PostgreSQL. @category constructors */
export const make: Effect.Effect<ConsoleSessionStore.ConsoleSessionStore["Service"], never, Database> = Effect.map(
  Database,
  (db) =>
    ConsoleSessionStore.ConsoleSessionStore.of({
      create: (session, now) =>
        Effect.andThen(db.query(DROP_ENDED, [now]), db.query(INSERT, [session.idHash, session.expiresAt])),
      expiresAt: (idHash, now) =>
        Effect.map(
          db.query<{ expiresAt: number }>(SELECT, [idHash, now]),
          (rows) => Option.map(Option.fromNullishOr(rows[0]), (row) => row.expiresAt)
        ),
      remove: (idHash) => Effect.asVoid(db.query(REMOVE, [idHash]))
    })
)

/** The console's sessions on PostgreSQL, as a layer. @category layers */
export const layer: Layer.Layer<ConsoleSessionStore.ConsoleSessionStore, never, Database> = Layer.effect(
  ConsoleSessionStore.ConsoleSessionStore,
  make
)
