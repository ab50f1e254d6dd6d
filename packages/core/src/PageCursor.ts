/**
 * Opaque, tamper-evident page cursors: the position after which the next page starts, bound to the
 * status filter it was issued for, signed with HMAC-SHA-256 under a server secret.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createHmac, timingSafeEqual } from "node:crypto"
import * as BoundedCache from "./BoundedCache.js"
import { InvalidCursor } from "./Errors.js"
import type { PetStatus } from "./Pet.js"
import { MAX_ID } from "./Pet.js"
import { SecureRandom } from "./SecureRandom.js"

/** Where the next page starts: after `afterId`, with the same status filter. */
export interface CursorPosition {
  readonly afterId: number
  readonly status: Option.Option<PetStatus>
}

const STATUS_CODES: ReadonlyArray<PetStatus> = ["available", "pending", "sold"]
const MAC_LENGTH = 22 // base64url characters ≈ 132 bits
/** How many issued cursors are kept (the cache starts over beyond). */
const CURSORS_KEPT = 4096

/** Signs and reads the opaque cursors of paged lists. @category services */
export class CursorSigner extends Context.Service<
  CursorSigner,
  {
    readonly encode: (position: CursorPosition) => string
    readonly decode: (token: string) => Result.Result<CursorPosition, InvalidCursor>
    /** Another listing's position (`payload`, its own text) as an opaque, signed cursor. */
    readonly seal: (payload: string) => string
    /** The payload `seal` signed in `token`; `InvalidCursor` when it was altered or not issued here. */
    readonly open: (token: string) => Result.Result<string, InvalidCursor>
  }
>()("@petstore/core/CursorSigner") {
  /** A signer under the given secret (at least 16 bytes); cursors stay valid as long as the secret does. */
  static readonly fromSecret = (secret: Uint8Array) => Layer.succeed(CursorSigner, make(secret))

  /** A signer under a fresh random secret: cursors are valid until the process ends. */
  static readonly random = Layer.effect(
    CursorSigner,
    Effect.map(Effect.flatMap(SecureRandom, (r) => r.bytes(32)), (secret) => make(secret))
  )
}

const sign = (secret: Uint8Array, payload: string): string =>
  createHmac("sha256", secret).update(payload).digest("base64url").slice(0, MAC_LENGTH)

/** A cursor signer keyed with `secret`. @category constructors */
export const make = (secret: Uint8Array): CursorSigner["Service"] => {
  if (secret.length < 16) throw new Error("cursor secret must be at least 16 bytes")
  const key = Buffer.from(secret)
  const invalid = (reason: string) => Result.fail(new InvalidCursor({ reason }))
  // Issued cursors by payload. Invalidation: none needed. A cursor is a pure function of its payload
  // and this signer's secret, which never changes, so a kept cursor is always the one that would be
  // signed again. Pages end at the same positions again and again, so keeping them saves an HMAC
  // per page served. Entries are dropped only when the cache starts over.
  const issued = BoundedCache.make<string, string>(CURSORS_KEPT)
  return {
    encode: ({ afterId, status }) => {
      const payload = `${afterId.toString(36)}.${Option.match(status, { onNone: () => 0, onSome: (s) => STATUS_CODES.indexOf(s) + 1 })}`
      let token = issued.get(payload)
      if (token === undefined) {
        token = `${Buffer.from(payload).toString("base64url")}.${sign(key, payload)}`
        issued.set(payload, token)
      }
      return token
    },
    seal: (payload) => `${Buffer.from(payload).toString("base64url")}.${sign(key, `~${payload}`)}`,
    open: (token) => {
      const dot = token.indexOf(".")
      if (dot <= 0 || token.length > 4096) return invalid("cursor is malformed")
      const body = token.slice(0, dot)
      const payload = Buffer.from(body, "base64url").toString()
      if (Buffer.from(payload).toString("base64url") !== body) return invalid("cursor is malformed")
      const mac = Buffer.from(token.slice(dot + 1))
      // Signed under another domain ("~") than the pets' cursors: one listing's cursor is never another's.
      const expected = Buffer.from(sign(key, `~${payload}`))
      return mac.length !== expected.length || !timingSafeEqual(mac, expected)
        ? invalid("cursor was not issued by this service or was altered")
        : Result.succeed(payload)
    },
    decode: (token) => {
      const dot = token.indexOf(".")
      if (dot <= 0 || token.length > 128) return invalid("cursor is malformed")
      const body = token.slice(0, dot)
      const payload = Buffer.from(body, "base64url").toString()
      // Node's decoder skips foreign characters and spare bits, so only the canonical spelling is accepted.
      if (Buffer.from(payload).toString("base64url") !== body) return invalid("cursor is malformed")
      const mac = Buffer.from(token.slice(dot + 1))
      const expected = Buffer.from(sign(key, payload))
      if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
        return invalid("cursor was not issued by this service or was altered")
      }
      const [idPart, statusPart] = payload.split(".")
      const afterId = parseInt(idPart ?? "", 36)
      const statusCode = Number(statusPart)
      if (!Number.isSafeInteger(afterId) || afterId < 0 || afterId > MAX_ID || !(statusCode >= 0 && statusCode <= 3)) {
        return invalid("cursor is malformed")
      }
      return Result.succeed({
        afterId,
        status: statusCode === 0 ? Option.none() : Option.some(STATUS_CODES[statusCode - 1]!)
      })
    }
  }
}
