/**
 * Cryptographically secure random bytes, injected so tests can make them reproducible.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomBytes } from "node:crypto"

/** Random bytes for keys, ids and secrets. @category services */
export class SecureRandom extends Context.Service<
  SecureRandom,
  { readonly bytes: (n: number) => Effect.Effect<Uint8Array> }
>()("@petstore/core/SecureRandom") {
  /** Bytes from the operating system's CSPRNG. */
  static readonly Live = Layer.succeed(SecureRandom, { bytes: (n) => Effect.sync(() => randomBytes(n)) })

  /** A deterministic generator for tests (a counter-mode xorshift; never use for real keys). */
  static readonly seeded = (seed: number) =>
    Layer.sync(SecureRandom, () => {
      let state = (seed | 0) || 0x9e3779b9
      const next = () => {
        state ^= state << 13
        state ^= state >>> 17
        state ^= state << 5
        return state & 0xff
      }
      return {
        bytes: (n) =>
          Effect.sync(() => {
            const out = new Uint8Array(n)
            for (let i = 0; i < n; i++) out[i] = next()
            return out
          })
      }
    })
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/**
 * `length` base62 characters, unbiased (bytes ≥ 248 are rejected), so each carries log2(62) ≈ 5.95 bits.
 *
 * @category constructors
 */
export const base62 = (length: number): Effect.Effect<string, never, SecureRandom> =>
  Effect.flatMap(SecureRandom, (random) =>
    Effect.gen(function*() {
      let out = ""
      while (out.length < length) {
        const bytes = yield* random.bytes(length * 2)
        for (let i = 0; i < bytes.length && out.length < length; i++) {
          const b = bytes[i]!
          if (b < 248) out += BASE62[b % 62]
        }
      }
      return out
    })
  )

/** A prefixed random identifier such as `acc_3x9…` (22 base62 characters ≈ 131 bits). */
export const randomId = (prefix: string): Effect.Effect<string, never, SecureRandom> =>
  Effect.map(base62(22), (s) => `${prefix}_${s}`)
