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
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { StoreUnavailable } from "./Errors.js"
import type { WebhookEndpoint, WebhookEndpointStore } from "./WebhookEndpoint.js"

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

const mapSecrets = (endpoint: WebhookEndpoint, f: (secret: string) => string): WebhookEndpoint => ({
  ...endpoint,
  secrets: endpoint.secrets.map((s) => ({ ...s, secret: f(s.secret) }))
})

/**
 * `store` with the endpoints' secrets sealed under `key` when written and opened when read. A secret
 * that does not open is the store's failure (`StoreUnavailable`, the unreadable secret its cause):
 * deliveries to that endpoint fail and are retried, the admin API answers 503, nothing is lost.
 */
export const sealedStore = (store: WebhookEndpointStore["Service"], key: Uint8Array): WebhookEndpointStore["Service"] => ({
  ...store,
  put: (endpoint) =>
    store.put(mapSecrets(endpoint, (secret) => secret.startsWith(PREFIX) ? secret : seal(key, endpoint.accountId, secret))),
  find: (accountId) =>
    Effect.flatMap(store.find(accountId), (found) =>
      Option.isNone(found)
        ? Effect.succeed(found)
        : Effect.try({
          try: () => Option.some(mapSecrets(found.value, (secret) => open(key, accountId, secret))),
          catch: (error) => new StoreUnavailable({ cause: error })
        }))
})
