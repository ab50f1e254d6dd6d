/**
 * `ConsoleSessionStore` on SQLite: the operator console's sessions by the hash of their id, with
 * their end. One server serves a file, so the sessions are those of that server.
 *
 * @since 2.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ConsoleSessionStore } from "@petstore/core"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"

/** The console's sessions on SQLite. @category constructors */
export const make: Effect.Effect<ConsoleSessionStore.ConsoleSessionStore["Service"], never, Connection | Database> = Effect.gen(
  function*() {
    const connection = yield* Connection
    const db = yield* Database
    const dropEnded = connection.prepare("DELETE FROM console_sessions WHERE expires_at <= ?")
    const insert = connection.prepare("INSERT OR REPLACE INTO console_sessions (id_hash, expires_at) VALUES (?, ?)")
    const select = connection.prepare("SELECT expires_at FROM console_sessions WHERE id_hash = ? AND expires_at > ?").pluck()
    const remove = connection.prepare("DELETE FROM console_sessions WHERE id_hash = ?")
    return ConsoleSessionStore.ConsoleSessionStore.of({
      create: (session, now) =>
        db.write(() => {
          dropEnded.run(now)
          insert.run(session.idHash, session.expiresAt)
        }),
      expiresAt: (idHash, now) =>
        db.read(() => Option.fromNullishOr(select.get(idHash, now) as number | undefined)),
      remove: (idHash) => db.write(() => void remove.run(idHash))
    })
  }
)

/** The console's sessions on SQLite, as a layer. @category layers */
export const layer: Layer.Layer<ConsoleSessionStore.ConsoleSessionStore, never, Connection | Database> = Layer.effect(
  ConsoleSessionStore.ConsoleSessionStore,
  make
)
