/**
 * The operator console's sessions: opened with the admin token, carried by the cookie
 * `petstore_console` (an opaque id: 32 random bytes, base64url), kept in the store only by an
 * HMAC-SHA-256 of the id under a key derived from the admin token (`ConsoleSessionStore`), so every
 * instance finds them and a sign-out on one ends them on all. The CSRF token is an HMAC-SHA-256 of
 * the id under another key derived from the admin token: nothing more is stored, and every instance
 * computes the same one. A new admin token ends every session: under the new key an old cookie's id
 * hashes to a value no stored session has, so it names no session.
 */
import { type ConsoleSessionStore, type Errors } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import type { AppRequest } from "../../AppRequest.js"

/** The cookie's name. */
export const COOKIE = "petstore_console"

/** A live session: its id (from the cookie), its CSRF token and its end (epoch ms). */
export interface Session {
  readonly id: string
  readonly csrfToken: string
  readonly expiresAt: number
}

export interface Sessions {
  /** Opens a session at `now`, for the configured time. */
  readonly open: (now: number) => Effect.Effect<Session, Errors.StoreUnavailable>
  /** The live session the request's cookie names at `now`, if any. */
  readonly find: (request: AppRequest, now: number) => Effect.Effect<Session | undefined, Errors.StoreUnavailable>
  /** The session id of the request's cookie, live or not (its form checked only). */
  readonly idOf: (request: AppRequest) => string | undefined
  /** Whether `header` (the request's `X-CSRF-Token`) is the CSRF token of the session `id`, in constant time. */
  readonly csrfMatches: (id: string, header: string | undefined) => boolean
  /** Ends the session `id` everywhere. */
  readonly close: (id: string) => Effect.Effect<void, Errors.StoreUnavailable>
  /** The CSRF token of the session `id`. */
  readonly csrfOf: (id: string) => string
}

const ID = /^[A-Za-z0-9_-]{43}$/

/** The value of cookie `name` in a `Cookie` header, if present. */
export const cookieValue = (header: string | undefined, name: string): string | undefined => {
  if (header === undefined) return undefined
  for (const part of header.split(";")) {
    const eq = part.indexOf("=")
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** A key derived from the admin token for one use (`purpose`). */
const keyOf = (adminToken: string, purpose: string): Buffer => createHmac("sha256", adminToken).update(purpose).digest()

/** The sessions over `store`, lasting `hours`, with their stored hashes and CSRF tokens keyed from `adminToken`. */
export const make = (options: {
  readonly store: ConsoleSessionStore.ConsoleSessionStore["Service"]
  readonly adminToken: string
  readonly hours: number
}): Sessions => {
  const csrfKey = keyOf(options.adminToken, "petstore console csrf")
  const idKey = keyOf(options.adminToken, "petstore console session id")
  const hashOf = (id: string): string => createHmac("sha256", idKey).update(id).digest("hex")
  const csrfOf = (id: string): string => createHmac("sha256", csrfKey).update(id).digest("base64url")
  const lifetime = Math.round(options.hours * 3_600_000)
  const idOf = (request: AppRequest): string | undefined => {
    const id = cookieValue(request.header("cookie"), COOKIE)
    return id !== undefined && ID.test(id) ? id : undefined
  }
  return {
    open: (now) =>
      Effect.suspend(() => {
        const id = randomBytes(32).toString("base64url")
        const expiresAt = now + lifetime
        return Effect.as(options.store.create({ idHash: hashOf(id), expiresAt }, now), { id, csrfToken: csrfOf(id), expiresAt })
      }),
    find: (request, now) => {
      const id = idOf(request)
      if (id === undefined) return Effect.succeed(undefined)
      return Effect.map(
        options.store.expiresAt(hashOf(id), now),
        Option.match({ onNone: () => undefined, onSome: (expiresAt) => ({ id, csrfToken: csrfOf(id), expiresAt }) })
      )
    },
    idOf,
    csrfMatches: (id, header) => {
      if (header === undefined) return false
      const expected = Buffer.from(csrfOf(id))
      const given = Buffer.from(header)
      return given.length === expected.length && timingSafeEqual(given, expected)
    },
    close: (id) => options.store.remove(hashOf(id)),
    csrfOf
  }
}
