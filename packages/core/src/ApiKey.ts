/**
 * API keys: `psk_live_` (production) or `psk_test_` (staging) followed by 32 base62 characters
 * (≈ 190 random bits). The full key exists only in the answer that issues it; storage keeps its
 * SHA-256 and a short display prefix.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { hash as digest } from "node:crypto"
import { base62, type SecureRandom } from "./SecureRandom.js"

/** Which deployment issued a key; decides its prefix. */
export type KeyEnvironment = "production" | "staging"

/** The prefix of the keys issued in each environment. */
export const KEY_PREFIX: { readonly [E in KeyEnvironment]: string } = {
  production: "psk_live_",
  staging: "psk_test_"
}

const SECRET_LENGTH = 32
const KEY_PATTERN = /^psk_(live|test)_[0-9A-Za-z]{32}$/

/** The characters of a key that may be shown again (prefix plus four): enough to recognise, useless to use. */
export const displayPrefix = (key: string): string => key.slice(0, KEY_PREFIX.production.length + 4)

/** Hex SHA-256 of a key: high-entropy keys need no salt or slow hash. */
// One-shot hashing (Node ≥ 20.12) avoids building a Hash object per request.
export const hash = (key: string): string => digest("sha256", key, "hex")

/** A cheap shape check that lets obviously wrong tokens skip hashing and lookup. */
export const isWellFormed = (token: string): boolean => token.length === 41 && KEY_PATTERN.test(token)

/** A freshly generated key, kept redacted so it never reaches a log by accident. */
export interface GeneratedKey {
  readonly key: Redacted.Redacted<string>
  readonly hash: string
  readonly prefix: string
}

/** A new key for `environment`: its secret, its id and its prefix, from the secure random source. @category constructors */
export const generate = (environment: KeyEnvironment): Effect.Effect<GeneratedKey, never, SecureRandom> =>
  Effect.map(base62(SECRET_LENGTH), (secret) => {
    const key = KEY_PREFIX[environment] + secret
    return { key: Redacted.make(key), hash: hash(key), prefix: displayPrefix(key) }
  })
