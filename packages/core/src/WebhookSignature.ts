/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the signing secret's form, the
 * `v1,` HMAC-SHA256 signature of `id.timestamp.body` the sender puts in `webhook-signature`, and the
 * receiver's check of a delivery from its raw body and headers. Plain functions, no Effect, so a
 * receiver can use them as `@petstore/core/webhooks` without adopting anything else.
 *
 * @since 1.0.0
 */
import { createHmac, timingSafeEqual } from "node:crypto"

/** Every signing secret starts with this; the rest is the key, base64. */
export const SECRET_PREFIX = "whsec_"

/** Random bytes in a new secret: the specification asks for 24 to 64. */
export const SECRET_BYTES = 32

/** How far a delivery's `webhook-timestamp` may be from the receiver's clock (the reference library's 5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60

/** A delivery failed verification; `message` says why (never quoting a secret). */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError"
}

/** The secret for `bytes` (at least 24 of them): `whsec_` + base64. */
export const secretFromBytes = (bytes: Uint8Array): string => {
  if (bytes.length < 24 || bytes.length > 64) throw new RangeError("a webhook secret has 24 to 64 random bytes")
  return SECRET_PREFIX + Buffer.from(bytes).toString("base64")
}

/** The key of a `whsec_` secret (the prefix is optional, as the reference library accepts). */
export const secretKey = (secret: string): Buffer => {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new WebhookVerificationError("the secret is not whsec_ followed by base64")
  return Buffer.from(encoded, "base64")
}

/** The content a signature covers: `id.timestamp.body`, the body exactly as sent. */
const signedContent = (id: string, timestamp: number, body: string | Uint8Array): Buffer =>
  Buffer.concat([Buffer.from(`${id}.${timestamp}.`, "utf8"), typeof body === "string" ? Buffer.from(body, "utf8") : body])

/** One signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the secret. */
export const sign = (secret: string, id: string, timestamp: number, body: string | Uint8Array): string =>
  "v1," + createHmac("sha256", secretKey(secret)).update(signedContent(id, timestamp, body)).digest("base64")

/** The `webhook-signature` header: one signature per live secret, space-separated (rotation signs with both). */
export const signatureHeader = (
  secrets: ReadonlyArray<string>,
  id: string,
  timestamp: number,
  body: string | Uint8Array
): string => secrets.map((secret) => sign(secret, id, timestamp, body)).join(" ")

/** Headers as Node, Express, Fastify and fetch give them: a record (any case) or a `Headers`. */
export type DeliveryHeaders =
  | { readonly get: (name: string) => string | null }
  | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const header = (headers: DeliveryHeaders, name: string): string | undefined => {
  if (typeof (headers as { get?: unknown }).get === "function") {
    return (headers as { get: (name: string) => string | null }).get(name) ?? undefined
  }
  const record = headers as Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== name) continue
    const value = record[key]
    return typeof value === "string" ? value : value?.[0]
  }
  return undefined
}

/** How far a delivery's timestamp may be from now for `verify` to accept it. */
export interface VerifyOptions {
  /** Now, in seconds since the epoch (default: the system clock). */
  readonly nowSeconds?: number
  readonly toleranceSeconds?: number
}

/**
 * Checks a delivery and answers its parsed JSON body: the headers are present, the timestamp is
 * within the tolerance, and one of the `v1,` signatures matches one of `secrets` (several during a
 * rotation on the receiver's side). The body must be the raw bytes received, not re-serialised JSON.
 * Throws `WebhookVerificationError` otherwise.
 */
export const verify = (
  secrets: string | ReadonlyArray<string>,
  rawBody: string | Uint8Array,
  headers: DeliveryHeaders,
  options: VerifyOptions = {}
): unknown => {
  const id = header(headers, "webhook-id")
  const timestampText = header(headers, "webhook-timestamp")
  const signatures = header(headers, "webhook-signature")
  if (id === undefined || timestampText === undefined || signatures === undefined) {
    throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header")
  }
  if (!/^\d{1,12}$/.test(timestampText)) throw new WebhookVerificationError("webhook-timestamp is not whole seconds")
  const timestamp = Number(timestampText)
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000)
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  if (Math.abs(now - timestamp) > tolerance) throw new WebhookVerificationError("webhook-timestamp is outside the tolerance")
  const expected = (typeof secrets === "string" ? [secrets] : secrets).map((secret) =>
    Buffer.from(sign(secret, id, timestamp, rawBody).slice(3), "base64")
  )
  const matches = signatures.split(" ").some((candidate) => {
    if (!candidate.startsWith("v1,")) return false
    const given = Buffer.from(candidate.slice(3), "base64")
    return expected.some((e) => e.length === given.length && timingSafeEqual(e, given))
  })
  if (!matches) throw new WebhookVerificationError("no matching signature")
  return JSON.parse(typeof rawBody === "string" ? rawBody : Buffer.from(rawBody).toString("utf8"))
}
