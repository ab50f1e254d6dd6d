/**
 * Where the operator console's sessions are kept, so that a session opened on one instance is valid
 * on every instance and a sign-out on one ends it on all of them. A session is stored by a hash
 * of its id (an HMAC-SHA-256 keyed from the admin token, hex), never the id itself, with the
 * instant it ends; nothing else. Store adapters (SQLite, PostgreSQL) implement it; `makeMemory`
 * keeps sessions in process memory.
 *
 * @since 2.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { StoreUnavailable } from "./Errors.js"

/** A session as stored: the hash of its id and when it ends (epoch ms). */
export interface StoredSession {
  readonly idHash: string
  readonly expiresAt: number
}

/** The port of the console's sessions. @category services */
export class ConsoleSessionStore extends Context.Service<
  ConsoleSessionStore,
  {
    /** Keeps `session`; sessions that ended at or before `now` are forgotten on the way. */
    readonly create: (session: StoredSession, now: number) => Effect.Effect<void, StoreUnavailable>
    /** When the session with `idHash` ends, if it exists and has not ended at `now`. */
    readonly expiresAt: (idHash: string, now: number) => Effect.Effect<Option.Option<number>, StoreUnavailable>
    /** Ends the session with `idHash` (nothing when there is none). */
    readonly remove: (idHash: string) => Effect.Effect<void, StoreUnavailable>
  }
>()("@petstore/core/ConsoleSessionStore") {
  /** In process memory: sessions end with the process. */
  static readonly layerMemory = Layer.sync(ConsoleSessionStore, () => makeMemory())
}

/** The console's sessions in process memory. @category constructors */
export const makeMemory = (): ConsoleSessionStore["Service"] => {
  const sessions = new Map<string, number>()
  return {
    create: (session, now) =>
      Effect.sync(() => {
        for (const [idHash, expiresAt] of sessions) if (expiresAt <= now) sessions.delete(idHash)
        sessions.set(session.idHash, session.expiresAt)
      }),
    expiresAt: (idHash, now) =>
      Effect.sync(() => {
        const expiresAt = sessions.get(idHash)
        return expiresAt === undefined || expiresAt <= now ? Option.none() : Option.some(expiresAt)
      }),
    remove: (idHash) => Effect.sync(() => void sessions.delete(idHash))
  }
}
