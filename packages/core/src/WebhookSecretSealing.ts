/**
 * Webhook signing secrets sealed at rest: with a key (`PETSTORE_WEBHOOK_SECRET_KEY`, 32 bytes), each
 * secret is stored as `sealed:v1:` + base64url(IV ‖ tag ‖ AES-256-GCM ciphertext), bound to its account
 * (the account id is the associated data, so a sealed secret copied to another account's row does not
 * open). {@link sealedStore} wraps any `WebhookEndpointStore`: what it writes is sealed, what it reads
 * is opened. A secret stored in clear (written before a key was set) is read as it is, and sealed the
 * next time the endpoint is written (set again or rotated).
 *
 * @since 1.0.0
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { signingProblem, type WebhookEndpoint, type WebhookEndpointStore } from "./WebhookEndpoint.js"

/** A sealed secret starts with this. */
export const PREFIX = "sealed:v1:"

/** The key's length: AES-256. */
export const KEY_BYTES = 32

const IV_BYTES = 12
const TAG_BYTES = 16

/** The key from its text: 64 hex digits or the base64 of 32 bytes; `undefined` when it is neither. */
export const parseKey = (text: string): Buffer | undefined => {
  const trimmed = text.trim()
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, "hex")
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)
    ? Buffer.from(trimmed, "base64")
    : undefined
  return bytes !== undefined && bytes.length === KEY_BYTES ? bytes : undefined
}

/** `secret` sealed under `key`, bound to `accountId`. */
export const seal = (key: Uint8Array, accountId: string, secret: string): string => {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(accountId, "utf8"))
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()])
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url")
}

/** A sealed secret that does not open under the key (another key, another account, altered). */
export class SealedSecretUnreadable extends Error {
  override readonly name = "SealedSecretUnreadable"
}

/** The secret in `stored`: opened when sealed, as it is when stored in clear. */
export const open = (key: Uint8Array, accountId: string, stored: string): string => {
  if (!stored.startsWith(PREFIX)) return stored
  const bytes = Buffer.from(stored.slice(PREFIX.length), "base64url")
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES))
    decipher.setAAD(Buffer.from(accountId, "utf8"))
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8")
  } catch {
    throw new SealedSecretUnreadable(
      `a webhook secret of account ${accountId} does not open with PETSTORE_WEBHOOK_SECRET_KEY (another key sealed it); set the endpoint again`
    )
  }
}

/** Why a sealed secret cannot be read by a server without a key. */
export const NO_KEY =
  "a webhook signing secret is stored sealed and PETSTORE_WEBHOOK_SECRET_KEY is not set: set the key that sealed it, or set the endpoint again"

/** The endpoint's secrets opened under `key` (none: the server has no key); one that does not open is marked `unreadable`. */
export const opened = (endpoint: WebhookEndpoint, key: Uint8Array | undefined): WebhookEndpoint => {
  // Secrets stored in clear (a server without a key): the endpoint as it was read, nothing copied.
  if (endpoint.secrets.every((s) => !s.secret.startsWith(PREFIX))) return endpoint
  return {
    ...endpoint,
    secrets: endpoint.secrets.map((s) => {
      if (!s.secret.startsWith(PREFIX)) return s
      if (key === undefined) return { ...s, unreadable: NO_KEY }
      try {
        return { ...s, secret: open(key, endpoint.accountId, s.secret) }
      } catch (error) {
        return { ...s, unreadable: (error as Error).message }
      }
    })
  }
}

/**
 * `store` with the endpoints' secrets sealed under `key` when written (in clear without a key) and
 * opened when read. A secret that does not open (another key sealed it, or the server has none) is read
 * marked `unreadable` rather than failing the read: the endpoint is still shown (saying so), can be set
 * again or rotated, and its deliveries are failed attempts that say why, each kept for replay. The
 * first read of such an endpoint in the process logs one warning naming the account and the variable.
 */
export const sealedStore = (store: WebhookEndpointStore["Service"], key: Uint8Array | undefined): WebhookEndpointStore["Service"] => {
  const warned = new Set<string>()
  const read = (endpoint: WebhookEndpoint): Effect.Effect<WebhookEndpoint> => {
    const e = opened(endpoint, key)
    if (warned.has(e.accountId) || e.secrets.every((s) => s.unreadable === undefined)) return Effect.succeed(e)
    // Only a secret that signs now matters (one past its grace is never used).
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const problem = signingProblem(e, now)
      if (problem === undefined) return Effect.succeed(e)
      warned.add(e.accountId)
      return Effect.as(Effect.logWarning(`webhook endpoint of account ${e.accountId}: its deliveries cannot be signed: ${problem}`), e)
    })
  }
  return {
    ...store,
    put: (endpoint) =>
      store.put({
        ...endpoint,
        // A secret that did not open is written back as it was stored.
        secrets: endpoint.secrets.map((s) => ({
          secret: key === undefined || s.secret.startsWith(PREFIX) ? s.secret : seal(key, endpoint.accountId, s.secret),
          expiresAt: s.expiresAt
        }))
      }),
    find: (accountId) =>
      Effect.flatMap(store.find(accountId), (found) =>
        Option.isNone(found) ? Effect.succeed(found) : Effect.map(read(found.value), Option.some)),
    page: (afterAccountId, limit) => Effect.flatMap(store.page(afterAccountId, limit), (page) => Effect.forEach(page, read))
  }
}
